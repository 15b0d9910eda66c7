// The PostgreSQL change stream through the public C++ API (ReadStream().Format("postgres_cdc")),
// against a real server started on loopback (cdc/testing_postgres_server.h).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/cdc/testing_postgres_server.h"
#include "silt/io/path.h"
#include "silt/io/testing_temporary_folder.h"
#include "silt/session.h"
#include "silt/streaming.h"

namespace silt {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Rows(const Result& result) {
  std::vector<std::string> lines;
  for (const Row& row : result) {
    std::string line;
    for (size_t column = 0; column < row.size(); ++column) {
      if (column > 0) line += ',';
      line += row.IsNull(column) ? "" : row.ToString(column);
    }
    lines.push_back(line);
  }
  return lines;
}

TEST(PostgresCdcStreamApiTest, ReadStreamFormatPostgresCdcIntoADeltaTable) {
  cdc::testing::PostgresServer server;
  if (!server.started()) GTEST_SKIP() << server.error();
  ASSERT_EQ(server.Psql("CREATE TABLE accounts (id int PRIMARY KEY, owner text, balance numeric(10,2));"
                        "INSERT INTO accounts VALUES (1, 'ann', 10.00), (2, 'bob', 20.50);"),
            0);
  io::TestingTemporaryFolder folder;
  Session session(SessionOptions{io::JoinPath(folder.path(), "warehouse"), {}});
  auto run = [&] {
    StreamingQuery query = session.ReadStream()
                               .Format("postgres_cdc")
                               .Option("connection", server.Uri())
                               .Option("tables", "public.accounts")
                               .Option("slot", "api_slot")
                               .Load()
                               .SelectExpr({"id", "owner", "balance", "_op"})
                               .WriteStream()
                               .Option("checkpointLocation", io::JoinPath(folder.path(), "checkpoint"))
                               .Trigger(Trigger::AvailableNow())
                               .ToTable("account_changes");
    query.AwaitTermination();
  };
  run();
  ASSERT_EQ(server.Psql("UPDATE accounts SET balance = balance + 1 WHERE id = 2; DELETE FROM accounts WHERE id = 1;"), 0);
  run();
  EXPECT_THAT(Rows(session.Execute("SELECT _op, id, owner, balance FROM account_changes ORDER BY _op, id")),
              ElementsAre("d,1,,", "r,1,ann,10.00", "r,2,bob,20.50", "u,2,bob,21.50"));
  // The connection may also be the path Load takes.
  EXPECT_THROW(session.ReadStream().Format("postgres_cdc").Option("tables", "public.accounts").Load("not a url")
                   .WriteStream()
                   .Option("checkpointLocation", io::JoinPath(folder.path(), "other"))
                   .Trigger(Trigger::AvailableNow())
                   .ToTable("nothing")
                   .AwaitTermination(),
               Error);
}

}  // namespace
}  // namespace silt
