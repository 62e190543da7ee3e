// Exits 7 without touching the GPU: -run's test (the status is the program's).
#include <cstdio>
int main(int argc, char **argv) {
  std::printf("ran with %d argument(s): %s\n", argc - 1, argc > 1 ? argv[1] : "");
  return 7;
}
