#include "silt/data_frame.h"

#include "silt/api/session_internal.h"
#include "silt/api/sql_text_internal.h"
#include "silt/base/check.h"
#include "silt/exec/operator.h"
#include "silt/sql/parser.h"
#include "silt/sql/planner.h"
#include "silt/sql/session_state.h"

namespace silt {

struct DataFrame::Impl {
  Session* session = nullptr;
  /// The statement as written (without a trailing `;`).
  std::string text;
  /// The query an action runs; null for a statement that ran when the DataFrame was made.
  sql::QueryPtr query;
  /// The rows of a statement that ran when the DataFrame was made.
  Result ran;
  std::vector<ColumnInfo> columns;
};

namespace {

exec::ExecContext MakeExecContext(sql::SessionState& state) {
  exec::ExecContext context;
  context.eval = state.MakeEvalContext();
  context.pool = &state.pool();
  context.memory = state.MakeQueryMemory();
  return context;
}

std::vector<ColumnInfo> ColumnsOf(const Schema& schema) {
  std::vector<ColumnInfo> columns;
  for (const Field& field : schema.fields()) {
    columns.push_back(ColumnInfo{field.name, field.type->ToString(), field.nullable});
  }
  return columns;
}

// A statement of kind kQuery around `query`, for the statement executor.
sql::Statement QueryStatement(sql::QueryPtr query, std::string text) {
  sql::Statement statement;
  statement.kind = sql::StatementKind::kQuery;
  statement.query = std::move(query);
  statement.source_text = std::move(text);
  return statement;
}

std::shared_ptr<const TimeZone> SessionZone(sql::SessionState& state) {
  return TimeZone::Find(state.MakeEvalContext().time_zone);
}

}  // namespace

DataFrame api::Access::MakeDataFrame(Session& session, std::string_view text) {
  sql::Statement statement = sql::ParseStatement(text);
  auto impl = std::make_shared<DataFrame::Impl>();
  impl->session = &session;
  impl->text = statement.source_text;
  if (statement.kind != sql::StatementKind::kQuery) {
    // Commands run when they are written down, as Spark's spark.sql() runs them.
    impl->ran = MakeResult(RunStatement(session, statement));
    impl->columns = impl->ran.columns();
  } else {
    // Analysed now so that a missing table or column fails here, as in Spark; nothing is read.
    sql::SessionState& state = StateOf(session);
    exec::ExecContext context = MakeExecContext(state);
    sql::PlannedQuery planned = sql::PlanQuery(state, *statement.query, context);
    impl->columns = ColumnsOf(*planned.schema);
    impl->query = statement.query;
  }
  return DataFrame(std::move(impl));
}

Result DataFrame::Collect() const {
  if (!impl_->query) return impl_->ran;
  return api::MakeResult(
      api::RunStatement(*impl_->session, QueryStatement(impl_->query, impl_->text)));
}

ResultStream DataFrame::Stream() const {
  if (!impl_->query) {
    return api::Access::MakeStream(api::StatementStream::OfRows(api::OutputOf(impl_->ran)));
  }
  return api::Access::MakeStream(
      api::StatementStream::Open(*impl_->session, QueryStatement(impl_->query, impl_->text)));
}

int64_t DataFrame::Count() const {
  if (!impl_->query) return impl_->ran.num_rows();
  // The count runs over the query as a subquery, so the planner reads only what counting needs.
  sql::Statement count = sql::ParseStatement("SELECT count(*) FROM (SELECT 1) AS counted");
  count.query->from.at(0)->subquery = impl_->query;
  count.source_text = "SELECT count(*) FROM (" + impl_->text + ")";
  StatementOutput output = api::RunStatement(*impl_->session, count);
  SILT_CHECK(output.num_rows() == 1, "count(*) returned other than one row");
  return output.batches()[0].column(0)->values<int64_t>()[0];
}

const std::vector<ColumnInfo>& DataFrame::Schema() const { return impl_->columns; }

std::string DataFrame::Show(int64_t num_rows, int truncate) const {
  if (!impl_->query) return impl_->ran.Show(num_rows, truncate);
  SILT_USER_CHECK(num_rows >= 0 && truncate >= 0, INVALID_ARGUMENT,
                  {{"message", "Show needs a non-negative number of rows and truncate width"}});
  sql::SessionState& state = api::StateOf(*impl_->session);
  exec::ExecContext context = MakeExecContext(state);
  sql::PlannedQuery planned = sql::PlanQuery(state, *impl_->query, context);
  // One row more than is shown tells whether the footer must say that rows were left out; the
  // rest of the query is never produced.
  std::vector<Batch> batches;
  int64_t rows = 0;
  while (rows <= num_rows) {
    std::optional<Batch> batch = planned.root->Next(context);
    if (!batch) break;
    rows += batch->num_rows();
    batches.push_back(std::move(*batch));
  }
  return api::MakeResult(
             StatementOutput(planned.schema, std::move(batches), impl_->text, SessionZone(state)))
      .Show(num_rows, truncate);
}

const std::string& DataFrame::sql() const { return impl_->text; }

void DataFrame::CreateOrReplaceTempView(const std::string& name) const {
  SILT_USER_CHECK(impl_->query != nullptr, INVALID_ARGUMENT,
                  {{"message", "only a query can become a temporary view"}});
  api::RunStatements(*impl_->session,
                     "CREATE OR REPLACE TEMP VIEW " +
                         api::QuoteMultipartName(name, "name", "CreateOrReplaceTempView") +
                         " AS " + impl_->text);
}

Session& DataFrame::session() const { return *impl_->session; }

}  // namespace silt
