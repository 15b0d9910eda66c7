// Uses silt as an installed library: a session on a fresh warehouse, a table written and read
// back through Session, DataFrame, Result and DeltaTable. Exits non-zero on the first mismatch.

#include <silt/silt.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {

int failures = 0;

template <typename T>
void ExpectEqual(const T& actual, const T& expected, const std::string& what) {
  if (actual == expected) return;
  std::cerr << "mismatch in " << what << ": got '" << actual << "', expected '" << expected
            << "'\n";
  ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: consumer WAREHOUSE\n";
    return 2;
  }
  try {
    silt::Session session(silt::SessionOptions{argv[1], {}});
    session.Execute(
        "CREATE TABLE people (id BIGINT NOT NULL, name STRING, score DOUBLE, active BOOLEAN, "
        "balance DECIMAL(10, 2), joined DATE) USING delta; "
        "INSERT INTO people VALUES (1, 'Ada', 9.5, true, 12.50, DATE'2024-01-31'), "
        "(2, NULL, 7.25, false, -0.05, DATE'1970-01-02'), (3, 'Linus', 8.0, true, 0, NULL)");

    silt::DataFrame people = session.Sql("SELECT * FROM people ORDER BY id");
    std::vector<std::string> types;
    for (const silt::ColumnInfo& column : people.Schema()) types.push_back(column.type);
    ExpectEqual(types.size(), size_t{6}, "number of columns");
    ExpectEqual(types.at(0), std::string("bigint"), "type of id");
    ExpectEqual(types.at(4), std::string("decimal(10,2)"), "type of balance");
    ExpectEqual(people.Count(), int64_t{3}, "Count()");

    silt::Result rows = people.Collect();
    ExpectEqual(rows.num_rows(), int64_t{3}, "rows collected");
    std::vector<int64_t> ids;
    for (const silt::Row& row : rows) ids.push_back(row.GetInt64(0));
    ExpectEqual(ids == std::vector<int64_t>{1, 2, 3}, true, "ids in order");
    silt::Row first = rows.row(0);
    ExpectEqual(first.GetString(rows.ColumnIndex("name")), std::string("Ada"), "name of row 0");
    ExpectEqual(first.GetDouble(2), 9.5, "score of row 0");
    ExpectEqual(first.GetBool(3), true, "active of row 0");
    ExpectEqual(first.ToString(4), std::string("12.50"), "balance of row 0");
    ExpectEqual(first.GetDate(5), int32_t{19753}, "joined of row 0 (days since 1970)");
    silt::Row second = rows.row(1);
    ExpectEqual(second.IsNull(1), true, "name of row 1 is NULL");
    ExpectEqual(second.ToString(1), std::string("NULL"), "NULL as text");
    ExpectEqual(second.ToString(4), std::string("-0.05"), "balance of row 1");
    ExpectEqual(rows.row(2).IsNull(5), true, "joined of row 2 is NULL");

    ExpectEqual(session.Table("people").Count(), int64_t{3}, "Table().Count()");
    std::string shown = session.Sql("SELECT id, name FROM people ORDER BY id").Show(2);
    ExpectEqual(shown,
                std::string("+---+----+\n"
                            "| id|name|\n"
                            "+---+----+\n"
                            "|  1| Ada|\n"
                            "|  2|NULL|\n"
                            "+---+----+\n"
                            "only showing top 2 rows\n"),
                "Show(2)");

    silt::DeltaTable table = silt::DeltaTable::ForName(session, "people");
    table.Delete("id = 2");
    ExpectEqual(table.ToDF().Count(), int64_t{2}, "rows after DeltaTable::Delete");
    silt::Result history = table.History();
    ExpectEqual(history.num_rows(), int64_t{3}, "commits in DESCRIBE HISTORY");
    ExpectEqual(history.row(0).GetString(history.ColumnIndex("operation")), std::string("DELETE"),
                "newest operation");

    try {
      session.Sql("SELECT * FROM missing");
      std::cerr << "a query of a missing table did not throw\n";
      ++failures;
    } catch (const silt::Error& error) {
      ExpectEqual(std::string(error.error_class()), std::string("TABLE_OR_VIEW_NOT_FOUND"),
                  "error class of a missing table");
      ExpectEqual(error.category() == silt::ErrorCategory::kUser, true, "error category");
    }
  } catch (const silt::Error& error) {
    std::cerr << "unexpected error: " << error.what() << "\n";
    return 1;
  }
  if (failures > 0) return 1;
  std::cout << "the installed library works\n";
  return 0;
}
