# cmake -DIN=file -DOUT=file.cpp -DSYMBOL=name -P embed-text.cmake
# Writes OUT defining `extern const char SYMBOL[]`: IN's text, as a raw
# string literal (rc-server's PTX, which has no ")ptx" in it).
file(READ "${IN}" text)
file(WRITE "${OUT}"
  "// Generated from ${IN} by gpu-server/embed-text.cmake.\n"
  "extern const char ${SYMBOL}[];\n"
  "const char ${SYMBOL}[] = R\"ptx(${text})ptx\";\n")
