int filler(int x) { return x + 1; }
