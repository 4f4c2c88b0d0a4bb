#!/bin/bash
# t-cpu: CPUPROFILE profiles of tcpu (PIE and non-PIE) with a linked and a
# dlopen'ed shared library, plus a "same second frame" profile; google-pprof references.
source "$(dirname "$0")/../common.sh"
begin_case t-cpu
copy_in tcpu.c twork.c twork.h tplugin.c

CFLAGS="-g -fno-omit-frame-pointer"
gcc $CFLAGS -O2 -fPIC -shared -o libtwork.so twork.c
gcc $CFLAGS -O1 -fPIC -shared -o libtplugin.so tplugin.c -lm
LINK=(-L. -ltwork -Wl,-rpath,'$ORIGIN' -Wl,--no-as-needed -lprofiler -Wl,--as-needed)
gcc $CFLAGS -O1                  -o tcpu-pie   tcpu.c "${LINK[@]}"
gcc $CFLAGS -O1 -fno-pie -no-pie -o tcpu-nopie tcpu.c "${LINK[@]}"

CPUPROFILE=$RUN/tcpu-pie.prof   CPUPROFILE_FREQUENCY=1000 ./tcpu-pie   work 300 > run-pie.stdout   2> run-pie.stderr
CPUPROFILE=$RUN/tcpu-nopie.prof CPUPROFILE_FREQUENCY=1000 ./tcpu-nopie work 300 > run-nopie.stdout 2> run-nopie.stderr
CPUPROFILE=$RUN/tcpu-leaf.prof  CPUPROFILE_FREQUENCY=1000 ./tcpu-pie   leaf 700 > run-leaf.stdout  2> run-leaf.stderr

profile_row cpu tcpu-pie   tcpu-pie.prof
profile_row cpu tcpu-nopie tcpu-nopie.prof
profile_row cpu tcpu-pie   tcpu-leaf.prof

FOCUS='twork_'
IGNORE='format_and_sort'
cpu_refs google-pprof tcpu-pie   tcpu-pie.prof
cpu_refs google-pprof tcpu-nopie tcpu-nopie.prof
FOCUS='first_user'
IGNORE='second_user'
cpu_refs google-pprof tcpu-pie   tcpu-leaf.prof
ref google-pprof tcpu-leaf.prof text-no_auto_signal_frm      tcpu-pie --text --no-auto-signal-frm
ref google-pprof tcpu-leaf.prof collapsed-no_auto_signal_frm tcpu-pie --collapsed --no-auto-signal-frm
if ! grep -q '^Removing .* from all stack traces\.$' refs/tcpu-leaf.prof/google-pprof.text.err; then
    echo "warning: tcpu-leaf.prof did not trigger 'Removing ... from all stack traces.'" >&2
fi

# --list: annotated source (pprof disassembles with objdump only for the lines)
ref google-pprof tcpu-pie.prof   list            tcpu-pie   --list=.
ref google-pprof tcpu-nopie.prof list-sieve-tree tcpu-nopie '--list=sieve|tree'
# --disasm: annotated disassembly (objdump's instructions, as in pprof)
ref google-pprof tcpu-nopie.prof disasm-sieve-tree tcpu-nopie '--disasm=sieve|tree'
ref google-pprof tcpu-pie.prof   disasm-some       tcpu-pie   '--disasm=sieve|tree|twork|cmp_str'
finish_case tcpu.c twork.c twork.h tplugin.c
