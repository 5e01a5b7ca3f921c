/* A QEMU TCG plugin (qemu-system-aarch64 7.2, plugin API 1) that counts the guest's executed
   instructions, user space (address bit 63 clear) and kernel apart, and prints both totals each
   time the guest executes the marker instruction `hint #127` (an unallocated hint: a NOP on real
   cores), so a guest program brackets what it measures. With profile=FILE it also writes, at each
   mark, every user translation block executed since the previous mark ("vaddr insns executions"),
   for report.py to name the functions. Debian ships no qemu-plugin.h: the few declarations used
   are written here. Counters are plain adds: run the VM with -smp 1.
   Build: gcc -shared -fPIC -O2 -o insncount.so insncount.c
   Use:   qemu-system-aarch64 ... -plugin ./insncount.so[,profile=FILE] -d plugin -D counts.log */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct { const char *target_name; } qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*tb_trans_cb)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*vcpu_udata_cb)(unsigned int, void *);
typedef void (*udata_cb)(qemu_plugin_id_t, void *);
extern void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb);
extern size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
extern uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *);
extern struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *, size_t);
extern const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *);
extern size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *);
extern void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *, enum qemu_plugin_op, void *, uint64_t);
extern void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *, vcpu_udata_cb, enum qemu_plugin_cb_flags, void *);
extern void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, udata_cb, void *);
extern void qemu_plugin_outs(const char *);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static const uint32_t marker = 0xd5032fff;   /* hint #127 */
static uint64_t user_insns, kernel_insns, marks;

/* One record per translated user block, in chunks so each counter's address stays put. */
struct block { uint64_t vaddr, insns, executions, reported; };
enum { CHUNK = 65536, MAX_CHUNKS = 4096 };
static struct block *chunks[MAX_CHUNKS];
static size_t blocks;
static FILE *profile;

static struct block *new_block(uint64_t vaddr, uint64_t insns) {
    size_t c = blocks / CHUNK;
    if (c >= MAX_CHUNKS) return NULL;
    if (!chunks[c] && !(chunks[c] = calloc(CHUNK, sizeof(struct block)))) return NULL;
    struct block *b = &chunks[c][blocks++ % CHUNK];
    b->vaddr = vaddr; b->insns = insns;
    return b;
}

static void write_profile(void) {
    fprintf(profile, "mark %llu\n", (unsigned long long)marks);
    for (size_t i = 0; i < blocks; i++) {
        struct block *b = &chunks[i / CHUNK][i % CHUNK];
        if (b->executions == b->reported) continue;
        fprintf(profile, "%llx %llu %llu\n", (unsigned long long)b->vaddr, (unsigned long long)b->insns,
                (unsigned long long)(b->executions - b->reported));
        b->reported = b->executions;
    }
    fflush(profile);
}

static void report(const char *what) {
    char line[160];
    snprintf(line, sizeof line, "insncount: %s %llu user %llu kernel %llu\n", what,
             (unsigned long long)marks, (unsigned long long)user_insns, (unsigned long long)kernel_insns);
    qemu_plugin_outs(line);
}

static void on_marker(unsigned int vcpu, void *data) {
    marks++;
    report("mark");
    if (profile) write_profile();
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    int kernel = qemu_plugin_tb_vaddr(tb) >> 63;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, kernel ? &kernel_insns : &user_insns,
                                             qemu_plugin_tb_n_insns(tb));
    if (kernel) return;
    struct block *b = profile ? new_block(qemu_plugin_tb_vaddr(tb), qemu_plugin_tb_n_insns(tb)) : NULL;
    if (b) qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->executions, 1);
    for (size_t i = 0; i < qemu_plugin_tb_n_insns(tb); i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint32_t word;
        if (qemu_plugin_insn_size(insn) != sizeof word) continue;
        memcpy(&word, qemu_plugin_insn_data(insn), sizeof word);
        if (word == marker) qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS, NULL);
    }
}

static void at_exit(qemu_plugin_id_t id, void *data) { report("exit"); }

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                                               int argc, char **argv) {
    for (int i = 0; i < argc; i++)
        if (strncmp(argv[i], "profile=", 8) == 0 && !(profile = fopen(argv[i] + 8, "w"))) return -1;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
