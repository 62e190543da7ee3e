/* C, as nvcc compiles .c files: `new` is a plain identifier here. */
int count_of(int new) { return new; }
