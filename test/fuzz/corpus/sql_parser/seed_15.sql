SELECT * FROM table_changes('db.t', 1, 5) c, table_changes_by_path('/p', 0)
