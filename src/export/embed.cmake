# SPDX-License-Identifier: MIT
# cmake -DIN=file -DOUT=file.c -DNAME=sym -P embed.cmake: @IN as the C
# array `const char NAME[]` (NUL-terminated) and `NAME_len` (without it),
# so that the timeline page's script and style sheet are edited as the
# files they are and built into trawl.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUT}" "/* SPDX-License-Identifier: MIT */\n/* generated from ${IN} by embed.cmake */\n"
  "const char ${NAME}[] = {\n${body}0x00};\nconst unsigned long ${NAME}_len = ${len};\n")
