/* Empty hooks for gcc's -pg -mfentry -minstrument-return=call: the floor
 * of that instrumentation, as dummy_hooks.c is -finstrument-functions'. */
	.text
	.globl __fentry__
	.type __fentry__, @function
__fentry__:
	ret
	.size __fentry__, .-__fentry__
	.globl __return__
	.type __return__, @function
__return__:
	ret
	.size __return__, .-__return__
	.section .note.GNU-stack,"",@progbits
