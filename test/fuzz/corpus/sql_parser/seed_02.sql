SELECT * EXCEPT (a), t.* FROM delta.`/data/events@v3` t, u VERSION AS OF 3
