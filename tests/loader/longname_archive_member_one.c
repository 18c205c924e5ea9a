int long_name_one(int x) { return x * 3; }
