// The host side of the device-linked program: nothing runs, the program only has to link.
int main() { return 0; }
