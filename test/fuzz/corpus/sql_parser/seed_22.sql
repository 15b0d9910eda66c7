INSERT OVERWRITE delta.`/p` VALUES (1, 'a'), (2, 'b')
