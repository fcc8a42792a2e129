// empty: no bindings, no constants, does nothing; measures the cost of a
// dispatch alone (see ../README.md).
#version 450
layout(local_size_x = 64) in;

void main() {}
