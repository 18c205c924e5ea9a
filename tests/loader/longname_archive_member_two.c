int long_name_one(int);
int long_name_two(int x) { return long_name_one(x) + 1; }
