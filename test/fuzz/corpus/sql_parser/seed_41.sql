SELECT 'unterminated
