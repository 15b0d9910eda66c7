struct<a: array<map<string, decimal(38,18)>>, b: timestamp_ntz>
