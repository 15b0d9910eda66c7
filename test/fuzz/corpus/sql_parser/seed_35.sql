SELECT /* nested /* comment */ */ 1 -- trailing
