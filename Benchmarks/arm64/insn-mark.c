/* The guest side of insncount.c: executes the marker instruction once and exits. No libc, so
   the mark itself costs a handful of instructions. Built for aarch64: -nostdlib -static. */
void _start(void) {
    __asm__ volatile("hint #127\n\tmov x0, #0\n\tmov x8, #93\n\tsvc #0" ::: "x0", "x8", "memory");
    __builtin_unreachable();
}
