// The symbol every object remote-clang compiles references from its first
// function (driver/include/rc-clang-cuda-fixes.h): defined here, so such
// objects link with librc_cudart.so; linked with another CUDA's libcudart
// instead, the link's first error names it, and the name says what to do.
// It is never called. Its name has spaces, which g++ cannot spell in C++;
// the assembler can, quoted. src/exports.map exports `remote-clang*`.
#define RC_LINK_MARKER                                                         \
  "remote-clang: this object needs remote-clang's libcudart, not another "     \
  "CUDA's: link with remote-clang's nvcc or remote-clang++, or put "           \
  "-L<remote-clang build>/cuda-overlay/lib64 before other CUDA lib64 "         \
  "folders (docs/compatibility.md)"

__asm__(".pushsection .text\n"
        ".globl \"" RC_LINK_MARKER "\"\n"
        ".type \"" RC_LINK_MARKER "\", @function\n"
        "\"" RC_LINK_MARKER "\":\n"
        "\tret\n"
        ".size \"" RC_LINK_MARKER "\", . - \"" RC_LINK_MARKER "\"\n"
        ".popsection\n");
