#include "silt/sql/catalog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/base/testing_error_class.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/io/testing_temporary_folder.h"
#include "silt/sql/session_state.h"

namespace silt::sql {
namespace {

using ::testing::ElementsAre;

// A minimal Delta log makes a folder a table, as far as the catalog is concerned.
void MakeDeltaFolder(io::FileSystem& fs, const std::string& root) {
  fs.WriteFile(io::JoinPath(root, "_delta_log/00000000000000000000.json"), "{}\n");
}

class CatalogTest : public ::testing::Test {
 protected:
  io::TestingTemporaryFolder folder_;
  std::shared_ptr<io::FileSystem> fs_ = io::MakeLocalFileSystem();
  std::string warehouse_ = io::JoinPath(folder_.path(), "warehouse");
};

TEST_F(CatalogTest, DatabasesPersistAcrossSessions) {
  {
    SessionState first(fs_, warehouse_);
    first.catalog().CreateDatabase("Sales", false, "numbers");
    EXPECT_EQ(ErrorClassOf([&] { first.catalog().CreateDatabase("sales", false); }),
              "SCHEMA_ALREADY_EXISTS");
    first.catalog().CreateDatabase("sales", /*if_not_exists=*/true);
  }
  SessionState second(fs_, warehouse_);
  EXPECT_THAT(second.catalog().ListDatabases(), ElementsAre("default", "sales"));
  EXPECT_TRUE(second.catalog().DatabaseExists("SALES"));
  EXPECT_EQ(second.catalog().DatabaseComment("sales"), "numbers");
  second.SetCurrentDatabase("Sales");
  EXPECT_EQ(second.current_database(), "sales");
  EXPECT_EQ(ErrorClassOf([&] { second.SetCurrentDatabase("nope"); }), "SCHEMA_NOT_FOUND");
}

TEST_F(CatalogTest, ManagedAndExternalTablesResolve) {
  std::string external = io::JoinPath(folder_.path(), "elsewhere/t2");
  {
    SessionState first(fs_, warehouse_);
    first.catalog().CreateDatabase("db", false);
    EXPECT_EQ(first.catalog().ManagedLocation("default", "T1"), io::JoinPath(warehouse_, "t1"));
    EXPECT_EQ(first.catalog().ManagedLocation("db", "t1"), io::JoinPath(warehouse_, "db.db/t1"));
    MakeDeltaFolder(*fs_, first.catalog().ManagedLocation("db", "t1"));
    MakeDeltaFolder(*fs_, external);
    first.catalog().RegisterExternalTable("db", "T2", external);
    EXPECT_EQ(ErrorClassOf([&] { first.catalog().RegisterExternalTable("db", "t2", external); }),
              "TABLE_OR_VIEW_ALREADY_EXISTS");
  }
  SessionState second(fs_, warehouse_);
  EXPECT_THAT(second.catalog().ListTables("db"), ElementsAre("t1", "t2"));
  EXPECT_TRUE(second.catalog().IsExternalTable("db", "t2"));
  EXPECT_FALSE(second.catalog().IsExternalTable("db", "t1"));

  TableSource managed = second.ResolveTable({"db", "T1"}, {});
  EXPECT_EQ(managed.kind, TableSource::Kind::kDelta);
  EXPECT_EQ(managed.display_name, "`spark_catalog`.`db`.`t1`");
  EXPECT_THAT(managed.identifier, ElementsAre("db", "t1"));
  TableSource by_catalog = second.ResolveTable({"spark_catalog", "db", "t2"}, {});
  EXPECT_EQ(by_catalog.location, external);
  second.SetCurrentDatabase("db");
  EXPECT_EQ(second.ResolveTable({"t2"}, {}).location, external);

  TableSource by_path = second.ResolveTable({"delta", external}, {});
  EXPECT_EQ(by_path.kind, TableSource::Kind::kDelta);
  EXPECT_EQ(by_path.display_name, "delta.`" + external + "`");
  EXPECT_TRUE(by_path.identifier.empty());
}

TEST_F(CatalogTest, DropKeepsExternalDataAndDeletesManagedData) {
  SessionState session(fs_, warehouse_);
  std::string managed = session.catalog().ManagedLocation("default", "m");
  std::string external = io::JoinPath(folder_.path(), "ext");
  MakeDeltaFolder(*fs_, managed);
  fs_->WriteFile(io::JoinPath(managed, "part-0.parquet"), "x");
  MakeDeltaFolder(*fs_, external);
  session.catalog().RegisterExternalTable("default", "e", external);
  EXPECT_THAT(session.catalog().ListTables("default"), ElementsAre("e", "m"));

  session.catalog().DropTable("default", "m", false);
  session.catalog().DropTable("default", "E", false);
  EXPECT_TRUE(session.catalog().ListTables("default").empty());
  EXPECT_TRUE(fs_->List(managed, "", true).empty());
  EXPECT_FALSE(fs_->List(io::JoinPath(external, "_delta_log")).empty());
  EXPECT_EQ(ErrorClassOf([&] { session.catalog().DropTable("default", "m", false); }),
            "TABLE_OR_VIEW_NOT_FOUND");
  session.catalog().DropTable("default", "m", /*if_exists=*/true);
}

// A warehouse written by an earlier version keeps its external tables in one registry file:
// they still resolve, and the next registry change turns them into entries.
TEST_F(CatalogTest, LegacyRegistryFileIsReadAndFoldedIntoEntries) {
  std::string old_location = io::JoinPath(folder_.path(), "old");
  std::string new_location = io::JoinPath(folder_.path(), "new");
  MakeDeltaFolder(*fs_, old_location);
  MakeDeltaFolder(*fs_, new_location);
  std::string legacy = io::JoinPath(warehouse_, "_silt_tables.json");
  fs_->WriteFile(legacy, "{\"tables\":{\"old\":\"" + old_location + "\"}}");
  Catalog catalog(fs_, warehouse_);
  EXPECT_EQ(catalog.TableLocation("default", "OLD"), old_location);
  EXPECT_TRUE(catalog.IsExternalTable("default", "old"));

  catalog.RegisterExternalTable("default", "new", new_location);
  EXPECT_FALSE(fs_->Stat(legacy).has_value());
  EXPECT_THAT(catalog.ListTables("default"), ElementsAre("new", "old"));
  EXPECT_EQ(catalog.TableLocation("default", "old"), old_location);
  EXPECT_EQ(ErrorClassOf([&] { catalog.RegisterExternalTable("default", "old", new_location); }),
            "TABLE_OR_VIEW_ALREADY_EXISTS");

  catalog.DropTable("default", "old", /*if_exists=*/false);
  EXPECT_THAT(catalog.ListTables("default"), ElementsAre("new"));
  EXPECT_TRUE(fs_->Stat(io::JoinPath(old_location, "_delta_log/00000000000000000000.json")));
}

TEST_F(CatalogTest, OverlongNamesAreRefusedBeforeTheDiskIsTouched) {
  Catalog catalog(fs_, warehouse_);
  std::string name(300, 'n');
  EXPECT_EQ(ErrorClassOf([&] { Catalog::CheckTableName(name); }), "TABLE_NAME_TOO_LONG");
  EXPECT_NO_THROW(Catalog::CheckTableName(std::string(255, 'n')));
  EXPECT_EQ(ErrorClassOf([&] {
              catalog.RegisterExternalTable("default", name, io::JoinPath(folder_.path(), "x"));
            }),
            "TABLE_NAME_TOO_LONG");
  EXPECT_EQ(catalog.TableLocation("default", name), std::nullopt);
  try {
    catalog.DropTable("default", name, /*if_exists=*/false);
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "TABLE_OR_VIEW_NOT_FOUND");
    EXPECT_LT(std::string(error.what()).size(), 400u) << error.what();
    EXPECT_NE(std::string(error.what()).find("(300 bytes)"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(fs_->Stat(warehouse_).has_value());
}

TEST_F(CatalogTest, DropDatabaseNeedsCascadeWhenNotEmpty) {
  SessionState session(fs_, warehouse_);
  session.catalog().CreateDatabase("d", false);
  MakeDeltaFolder(*fs_, session.catalog().ManagedLocation("d", "t"));
  EXPECT_EQ(ErrorClassOf([&] { session.catalog().DropDatabase("d", false, false); }),
            "SCHEMA_NOT_EMPTY");
  session.catalog().DropDatabase("d", false, /*cascade=*/true);
  EXPECT_FALSE(session.catalog().DatabaseExists("d"));
  EXPECT_EQ(ErrorClassOf([&] { session.catalog().DropDatabase("d", false, false); }),
            "SCHEMA_NOT_FOUND");
  session.catalog().DropDatabase("d", /*if_exists=*/true, false);
}

TEST_F(CatalogTest, UnresolvableNamesGiveSparkErrors) {
  SessionState session(fs_, warehouse_);
  try {
    session.ResolveTable({"nodb", "t"}, SourcePosition{1, 15, 14});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "TABLE_OR_VIEW_NOT_FOUND");
    EXPECT_THAT(error.what(), ::testing::HasSubstr("`nodb`.`t`"));
    EXPECT_THAT(error.what(), ::testing::HasSubstr("line 1, pos 14"));
  }
  EXPECT_EQ(ErrorClassOf([&] { session.ResolveTable({"missing"}, {}); }),
            "TABLE_OR_VIEW_NOT_FOUND");
  std::string not_delta = io::JoinPath(folder_.path(), "plain");
  fs_->WriteFile(io::JoinPath(not_delta, "a.json"), "{}\n");
  EXPECT_EQ(ErrorClassOf([&] {
              session.ResolveTable({"delta", not_delta}, {});
            }),
            "DELTA_MISSING_DELTA_TABLE");
  EXPECT_EQ(session.ResolveTable({"json", not_delta}, {}).kind, TableSource::Kind::kJson);
  EXPECT_EQ(ErrorClassOf([&] {
              session.ResolveTable({"csv", not_delta + "/none"}, {});
            }),
            "PATH_NOT_FOUND");
}

TEST_F(CatalogTest, PermanentViewsPersistAndShareNamesWithTables) {
  StoredView view;
  view.name = "v";
  view.database = "default";
  view.resolution_database = "default";
  view.text = "SELECT 1 AS one";
  view.schema_json =
      R"({"type":"struct","fields":[{"name":"one","type":"integer","nullable":true,"metadata":{}}]})";
  view.comment = "a view";
  view.sql_configs = {{"spark.sql.ansi.enabled", "false"}};
  {
    SessionState first(fs_, warehouse_);
    first.catalog().StoreView(view, /*replace=*/false);
    // Of two sessions creating one view, the second finds it taken.
    SessionState racing(fs_, warehouse_);
    EXPECT_EQ(ErrorClassOf([&] { racing.catalog().StoreView(view, /*replace=*/false); }),
              "TABLE_OR_VIEW_ALREADY_EXISTS");
    // A table's name is not free for a view.
    MakeDeltaFolder(*fs_, first.catalog().ManagedLocation("default", "t"));
    StoredView on_table = view;
    on_table.name = "t";
    EXPECT_EQ(ErrorClassOf([&] { first.catalog().StoreView(on_table, /*replace=*/true); }),
              "TABLE_OR_VIEW_ALREADY_EXISTS");
  }
  SessionState second(fs_, warehouse_);
  std::optional<StoredView> read = second.catalog().FindView("DEFAULT", "V");
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->text, "SELECT 1 AS one");
  EXPECT_EQ(read->comment, "a view");
  EXPECT_EQ(read->sql_configs, view.sql_configs);
  EXPECT_THAT(second.catalog().ListViews("default"), ElementsAre("v"));
  EXPECT_THAT(second.catalog().ListTables("default"), ElementsAre("t"));
  TableSource source = second.ResolveTable({"v"}, {});
  EXPECT_EQ(source.kind, TableSource::Kind::kView);
  EXPECT_EQ(source.display_name, "`spark_catalog`.`default`.`v`");
  ASSERT_NE(source.view, nullptr);
  EXPECT_THAT(source.view->column_names, ElementsAre("one"));
  EXPECT_TRUE(second.catalog().DropView("default", "v"));
  EXPECT_FALSE(second.catalog().DropView("default", "v"));
  EXPECT_EQ(ErrorClassOf([&] { second.ResolveTable({"v"}, {}); }), "TABLE_OR_VIEW_NOT_FOUND");
}

TEST_F(CatalogTest, TempViewsShadowTablesAndConfParses) {
  SessionState session(fs_, warehouse_);
  MakeDeltaFolder(*fs_, session.catalog().ManagedLocation("default", "v"));
  session.CreateTempView(TempView{"V", nullptr, {}, "SELECT 1"}, false);
  EXPECT_EQ(ErrorClassOf([&] {
              session.CreateTempView(TempView{"v", nullptr, {}, ""}, false);
            }),
            "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS");
  EXPECT_EQ(session.ResolveTable({"v"}, {}).kind, TableSource::Kind::kView);
  EXPECT_EQ(session.ResolveTable({"default", "v"}, {}).kind, TableSource::Kind::kDelta);
  EXPECT_TRUE(session.DropTempView("v"));
  EXPECT_FALSE(session.DropTempView("v"));

  session.SetConf("spark.sql.ansi.enabled", "FALSE");
  session.SetConf("spark.sql.session.timeZone", "+02:00");
  expr::EvalContext context = session.MakeEvalContext();
  EXPECT_FALSE(context.ansi);
  EXPECT_EQ(context.time_zone, "+02:00");
  EXPECT_GT(context.statement_timestamp_micros, 0);
  session.SetConf("spark.sql.ansi.enabled", "maybe");
  EXPECT_EQ(ErrorClassOf([&] { session.MakeEvalContext(); }), "INVALID_CONFIGURATION");
  session.UnsetConf("spark.sql.ansi.enabled");
  EXPECT_TRUE(session.MakeEvalContext().ansi);
}

}  // namespace
}  // namespace silt::sql
