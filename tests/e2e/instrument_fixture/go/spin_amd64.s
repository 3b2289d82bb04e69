#include "textflag.h"

// func spin(n int): 2n + 2 instructions for n >= 1, the same on every run.
TEXT ·spin(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
loop:
	DECQ CX
	JNZ loop
	RET
