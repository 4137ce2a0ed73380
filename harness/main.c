/* gcratchet — the command table and dispatch. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "meter_perf.h"

static const struct cli_command commands[] = {
    {"measure", cmd_measure,
     "usage: gcratchet measure [--collector NAME|--build DIR]... [--probes LIST]\n"
     "                         [--size ci|default|large] [--rounds N] [--warmup N]\n"
     "                         [--two-n N1,N2] [--meters LIST] [--events LIST] [--seed N]\n"
     "                         [--jobs N] [--timeout SEC] [--cpu N] [--no-aslr]\n"
     "                         [--pass-env NAME] [--env-offset MAX] [--lock-timeout SEC]\n"
     "                         [--idle-below LOAD] [--idle-timeout SEC] [--knob NAME=VALUE]...\n"
     "                         [--valgrind-runs N] [--thp off|host] [--db FILE]\n"
     "\n"
     "Runs every chosen probe on every chosen build, round after round, and stores every\n"
     "sample in the database. Builds are interleaved within each round (order reversed on\n"
     "every other round), the probe order is shuffled per round from the printed seed, and\n"
     "warm-up rounds are stored but marked.\n"
     "\n"
     "  --collector NAME  a shipped build under build/collectors (repeatable, or a comma list;\n"
     "                    default: " CLI_DEFAULT_COLLECTOR ")\n"
     "  --build DIR       any build folder with a manifest.json (repeatable)\n"
     "  --probes LIST     comma list of probe names or numbers (default: all the builds share)\n"
     "  --size S          ci, default or large (default: default)\n"
     "  --two-n N1,N2     instead of a size: run each probe at N1 and at N2 iterations and store\n"
     "                    the per-iteration cost (m(N2) - m(N1)) / (N2 - N1) as a run of kind\n"
     "                    per_iteration, so start-up cost cancels out\n"
     "  --rounds N        measured rounds (default 5); --warmup N warm-up rounds (default 1)\n"
     "  --meters LIST     rusage,census,perf,valgrind (default: all the host has; rusage and\n"
     "                    census are always on; valgrind adds one Ir run per probe and build)\n"
     "  --events LIST     perf events, any libpfm4 encodes (default " METER_PERF_DEFAULT_EVENTS
     ");\n"
     "                    an event the host cannot count is reported once and left out\n"
     "  --seed N          the shuffle seed, to repeat a session's order\n"
     "  --jobs N          valgrind runs at once, 1 to 64 (default: the online CPUs); they start\n"
     "                    after the last timed run, which always runs alone\n"
     "  --valgrind-runs N valgrind runs per probe and build (default 1; 2 or more show whether\n"
     "                    the build's Ir repeats)\n"
     "  --timeout SEC     kill a run after SEC seconds (default 300, 0: no limit; valgrind 100x)\n"
     "  --cpu N           pin every probe to CPU N\n"
     "  --no-aslr         timed runs with address-space randomisation off (valgrind runs always)\n"
     "  --pass-env NAME   give probes this variable of ours too (repeatable, or NAME,NAME;\n"
     "                    recorded by its name, never its value); otherwise a probe gets\n"
     "                    only a fixed environment and the GCR_* knobs\n"
     "  --clean-env       accepted for older command lines: every run is hermetic now\n"
     "  --env-offset MAX  pad each run's environment by 0..MAX bytes (from the seed), to expose\n"
     "                    layout bias\n"
     "  --lock-timeout S  one measuring session per host: wait up to S seconds (default 3600)\n"
     "                    for the bench lock ($GCR_LOCK_FILE or /tmp/gcratchet-bench.lock)\n"
     "  --idle-below L    first wait until the 1-minute load is below L (--idle-timeout S,\n"
     "                    default 300, then give up with exit 2)\n"
     "  --knob NAME=VALUE give every probe this environment variable, over the caller's (a\n"
     "                    collector knob: GCR_NURSERY_KB=16384, GCR_HEAP_MB=64; repeatable;\n"
     "                    NAME matches [A-Z][A-Z0-9_]*)\n"
     "  --thp off|host    transparent huge pages for the probes: off (default: the launcher\n"
     "                    turns them off before exec, so RSS is 4 KiB accounting on any host),\n"
     "                    or as the host is configured; the session records which\n"
     "  --db FILE         the database (default $GCR_DB or " CLI_DEFAULT_DB ")\n"
     "\n"
     "Exit status: 0 every run succeeded; 2 a run failed, crashed or timed out (it is stored\n"
     "and the session went on), the session was interrupted, or the arguments were wrong.\n",
     "run probes against collector builds and store every sample"},
    {"ratchet", cmd_ratchet,
     "usage: gcratchet ratchet [--profile shared_ci|pinned_host] [--collector NAME | --build DIR]\n"
     "                         [--rounds N] [--baseline FILE] [--all] [--strict] [--db FILE]\n"
     "                         [--md FILE] [--html FILE] [--samples-href HREF]\n"
     "                         [--sensitivity PCT] [--max-runs N]\n"
     "                         [--jobs N] [--timeout SEC] [--seed N] [--cpu N] [--no-aslr]\n"
     "                         [--lock-timeout SEC] [--idle-below LOAD] [--idle-timeout SEC]\n"
     "\n"
     "The main job in one command: measures exactly what the committed baseline\n"
     "baselines/<profile>/<collector>.json needs (its meters, size and probes; 3 rounds and a\n"
     "warm-up for shared_ci, 11 for pinned_host, or --rounds), searches the minimum heaps it\n"
     "gates (baseline pin --minheap), and checks that session against it. Default profile\n"
     "shared_ci, default collector " CLI_DEFAULT_COLLECTOR
     "; --build DIR is judged against the baseline of the\n"
     "collector its manifest names. Only the runs that failed, went inert or warned are\n"
     "printed (on a terminal, one line shows the run in progress), then check's verdict: the\n"
     "cells that are not ok, where a regressed Ir cell's instructions moved against the pin,\n"
     "one line per probe, the verdict line (--all: every cell); --md and --html write check's\n"
     "Markdown and page. A cell judged by its distribution (a figure that varies from run to\n"
     "run) whose shift is past its band but not yet beyond chance gets more runs of its probe,\n"
     "up to --max-runs N (default 15); --sensitivity PCT asks for the runs each such cell needs\n"
     "to see a change of PCT percent, within --max-runs, and names the cells it cannot reach\n"
     "and the runs they would take. The options of the last group are measure's: how the runs\n"
     "are made, not what is measured.\n"
     "\n"
     "Exit status: as check's: 0 ok; 1 a regression; 2 could not judge (a failed run, a\n"
     "missing or bad baseline, bad arguments).\n",
     "measure what the baseline needs and check it, in one process"},
    {"check", cmd_check,
     "usage: gcratchet check --profile shared_ci|pinned_host [--collector NAME] [--session N]\n"
     "                       [--build LABEL] [--base LABEL] [--baseline FILE] [--strict]\n"
     "                       [--all] [--format table|md|json|junit] [--md FILE]\n"
     "                       [--html FILE] [--samples-href HREF] [--sensitivity PCT]\n"
     "                       [--db FILE]\n"
     "\n"
     "Judges a session (default: the newest that measured the collector) against the baseline\n"
     "baselines/<profile>/<collector>.json. Each cell (probe x metric) has a baseline, the\n"
     "current median, delta, allowance, share of the allowance used and a verdict. The table\n"
     "shows the cells that are not ok (REGRESSED with how far past the allowance, improved,\n"
     "COULD NOT JUDGE, INERT), one line per probe with its counts, and the verdict; --all\n"
     "shows every cell. Colour on a terminal only, never under NO_COLOR. A probe that printed\n"
     "another checksum than the baseline's is a regression; cells whose runs failed or were\n"
     "not measured cannot be judged. A baseline pinned on another host or collector version\n"
     "is named STALE on the first line; --strict makes that exit 2. With --base BUILD (another\n"
     "build measured in the same session, e.g. the unchanged collector), each regressed cell\n"
     "says how much of its delta the base shows too (drift since the pin) and how much is the\n"
     "change. A regressed or improved Ir cell shows the functions that moved most against the\n"
     "pin (the baseline keeps each probe's largest; gcratchet explain lists them all). The\n"
     "Markdown (md) fits a pull-request comment: the verdict, one line per probe, every row\n"
     "that is not ok, the functions, then the ok rows in one fold, below 60,000 characters;\n"
     "json and junit carry every cell. It is also appended to $GITHUB_STEP_SUMMARY when that\n"
     "is set, and written to FILE with --md. --html FILE writes the check page: the verdict,\n"
     "the baseline, every row that is not ok with its band and samples, the functions, and a\n"
     "link to the session's page when --samples-href names it (report --session N --html).\n"
     "Every gated cell states the smallest change it would catch at the session's runs (the\n"
     "\"sees\" column, a \"can see\" line per class under the header); a cell that cannot see\n"
     "a change of 50% (--sensitivity PCT: of PCT percent) is named INSENSITIVE, with the runs\n"
     "that would let it. A cell of class distribution (a figure that varies from run to run)\n"
     "is judged by a rank test of the session's runs against its pinning runs, at a false-alarm\n"
     "rate of 0.001 over all such cells of the check, and a shift beyond its band.\n"
     "\n"
     "Exit status: 0 every gated cell within its band; 1 a regression; 2 could not judge (a\n"
     "failed run, a missing metric, a bad baseline file or bad arguments).\n",
     "judge a session against a committed baseline profile"},
    {"baseline", cmd_baseline,
     "usage: gcratchet baseline pin --profile P [--collector NAME] [--session N|latest]\n"
     "                              [--build NAME] [--out FILE] [--db FILE]\n"
     "                              [--accept-noise \"reason\"] [--vary-env N] [--meters LIST]\n"
     "                              [--minheap] [--heap-limited]\n"
     "       gcratchet baseline update --profile P [--collector NAME] [--session N|latest]\n"
     "                              [--accept \"reason\" [--ref URL]] [--out FILE] [--db FILE]\n"
     "       gcratchet baseline validate --profile P [--collector NAME] | FILE...\n"
     "\n"
     "pin measures the collector (ci size, 5 rounds after a warm-up, every meter the host has),\n"
     "or takes --session N (latest: the newest that measured the collector), and writes\n"
     "baselines/<P>/<collector>.json: every probe's checksum, every cell (median, min, max, n)\n"
     "and the profile's default rule for each metric. Only sessions whose runs all succeeded.\n"
     "A profile that gates time (pinned_host) is measured over 11 rounds and pinned from no\n"
     "fewer; when a gated time cell spread beyond the band over them, pin refuses (exit 2),\n"
     "naming the noisiest cells, the host's state and the fixes, unless --accept-noise\n"
     "\"reason\" records the decision in the file beside the widened cells. --vary-env N\n"
     "(2 to 16) measures N sessions, the i-th with every run's environment padded by up to\n"
     "(i-1) * 4096 bytes and ASLR on for timed runs, pools their runs per cell, widens a cell\n"
     "whose pooled spread exceeds its band, and records the sessions in \"vary_env\".\n"
     "Each rule has a class: exact, banded, quantile (judged on the min of the runs) or info.\n"
     "--heap-limited pins a session that ran at heap limits (a sweep's arm), refused otherwise.\n"
     "--minheap also pins each probe's minimum heap (minheap.min_heap_mib) from the newest\n"
     "answers gcratchet minheap stored for the build; check then judges a probe that needs more\n"
     "heap as REGRESSED (docs/sweeps.md, \"The min-heap ratchet\").\n"
     "update measures again (or takes --session) and judges every pinned cell: an improved\n"
     "cell is tightened to the new figures on its own; a regressed one is loosened only with\n"
     "--accept \"reason\", which adds a ledger entry (cell, old and new value, reason, --ref,\n"
     "date, who: $GCR_WHO, git's user.name or $USER). It prints what it changed; the file is\n"
     "written whole or not at all (a temporary file, then rename).\n"
     "validate checks profile files without measuring, as check, ratchet and update check\n"
     "the file they read: a cell whose pinning runs spread beyond its band, and a rule looser\n"
     "than what pin writes for the file's profile and capabilities with no override saying\n"
     "why, are refused (docs/baselines.md, \"What a hand edit must justify\").\n"
     "\n"
     "Exit status: 0 done; 1 update refused to loosen a regressed cell without --accept;\n"
     "2 a bad file, a failed run in the session, or bad arguments.\n",
     "pin a baseline profile from a session, or validate one"},
    {"list", cmd_list,
     "usage: gcratchet list [probes|collectors|sessions|metrics] [--db FILE]\n"
     "\n"
     "probes: the probes built, and for which builds; collectors: the build folders under\n"
     "build/collectors with collector, version and commit; sessions: the sessions in the\n"
     "database; metrics: every metric name a baseline rule may use.\n"
     "\n"
     "Exit status: 0 listed; 2 an unreadable database or build folder, or bad arguments.\n",
     "list probes, collector builds, sessions or metrics"},
    {"ab", cmd_ab,
     "usage: gcratchet ab BASE FIX [--rounds N] [--probes LIST] [--size ci|default|large]\n"
     "                    [--meters LIST] [--events LIST] [--seed N] [--warmup N] [--jobs N]\n"
     "                    [--timeout SEC] [--knob-base NAME=VALUE]... [--knob-fix NAME=VALUE]...\n"
     "                    [--across | --no-across] [--md FILE] [--json FILE] [--html FILE]\n"
     "                    [--valgrind-runs N] [--pass-env NAME] [--thp off|host] [--db FILE]\n"
     "\n"
     "A/B two collector builds on this host: every round runs each probe on both builds back\n"
     "to back (order alternating AB, BA, ...), probe order shuffled from the seed; all samples\n"
     "are stored as one session. Then, identity first (checksums equal, deterministic census\n"
     "counters compared exactly), one row per cell (probe x metric): medians of each arm, the\n"
     "median of the per-round deltas FIX - BASE with a 95% interval, the sign count, an exact\n"
     "Wilcoxon signed-rank p and a verdict with the false-discovery rate controlled across the\n"
     "session (Benjamini-Hochberg, q = 0.05). docs/ab.md explains every choice.\n"
     "\n"
     "BASE and FIX are each a build folder (any path holding a manifest.json), a shipped\n"
     "collector (build/collectors/NAME), or a git revision REV[:COLLECTOR] (default collector\n"
     "" CLI_DEFAULT_COLLECTOR
     "), built by scripts/build-rev.sh into build/rev/<tree hash>/ and reused while\n"
     "the revision's tree is unchanged. A folder or collector name wins over a revision.\n"
     "BASE and FIX are the session's two arms: a build and the knobs its probes run with. One\n"
     "build on both sides (an A/A) is stored once; its arms are labelled NAME and NAME (2).\n"
     "\n"
     "  --rounds N     measured rounds (default 7; 6 or more to judge noisy cells)\n"
     "  --probes LIST  comma list of probe names or numbers (default: all both builds have)\n"
     "  --size S       ci, default or large (default: ci)\n"
     "  --meters LIST  rusage,census,perf,valgrind (default: all the host has);\n"
     "                 --events LIST: perf events (default " METER_PERF_DEFAULT_EVENTS ")\n"
     "  --seed N       the shuffle seed; --warmup N warm-up rounds (default 1)\n"
     "  --jobs N       valgrind runs at once, after the timed rounds (default: the online CPUs)\n"
     "  --valgrind-runs N\n"
     "                 valgrind runs per probe and arm (default 2, 3 where Ir differs: an Ir\n"
     "                 that does not repeat is judged by its spread)\n"
     "  --pass-env NAME give probes this variable of ours too (as measure's)\n"
     "  --knob-base NAME=VALUE, --knob-fix NAME=VALUE\n"
     "                 an environment variable for BASE's or FIX's probes (repeatable): gen\n"
     "                 against gen with a 16 MiB nursery is\n"
     "                 gcratchet ab gen gen --knob-fix GCR_NURSERY_KB=16384\n"
     "  --across       two collector designs: the census (collections, bytes copied or\n"
     "                 promoted, barrier hits, heap as the collector counts it) is context,\n"
     "                 only costs decide (time, Ir, RSS, memory, cachesim, perf); the default\n"
     "                 when the builds' collector names differ. --no-across judges the census\n"
     "                 as within one design.\n"
     "  --md FILE      Markdown for a pull request (also appended to $GITHUB_STEP_SUMMARY)\n"
     "  --json FILE    every sample and every statistic (format gcratchet-ab)\n"
     "  --html FILE    a self-contained page with one plot per cell\n"
     "\n"
     "A probe that went inert in either arm (its premise not met) is shown in the identity\n"
     "section and none of its cells is judged; a failed run shows its stderr's first line.\n"
     "A progress line (round, run, ETA) goes to stderr when it is a terminal. Ctrl-C stops\n"
     "after the current run: finished runs stay stored and only complete rounds are paired.\n"
     "\n"
     "Exit status: 0 no cell worse; 1 FIX is worse on some cell, or its results differ from\n"
     "BASE's (checksum), or it fails where BASE does not; 2 could not run or judge (a side\n"
     "missing, empty or built for another ABI, a failed run, an interrupted session).\n",
     "A/B two collector builds, interleaved and paired"},
    {"export", cmd_export,
     "usage: gcratchet export [--session N] [--format json|csv] [--out FILE] [--db FILE]\n"
     "\n"
     "Writes the JSON census report of a session (default: the newest) to stdout or FILE:\n"
     "format gcratchet-session, version 2: the session, its host, its builds with their\n"
     "manifests, its arms (position, label, knobs, build), and every run with its arm and\n"
     "every sample it stored (schema: docs/schema/gcratchet-session.json).\n"
     "\n"
     "--format csv writes a header row, then one row per sample, with the columns\n"
     "  session,run,seq,round,warmup,kind,status,arm,label,build,collector,probe,size,\n"
     "  metric,unit,value\n"
     "(run: the run's id; seq: the order the session ran it; warmup: true or false; kind:\n"
     "timed, valgrind, ...; arm: the arm's position; label: the arm's; unit: bytes, ns,\n"
     "count, instructions or ratio). Fields with a comma, a quote or a line break are\n"
     "quoted as RFC 4180 says. Both formats list runs by probe number, arm, kind and round,\n"
     "and a run's samples by metric name.\n"
     "\n"
     "Exit status: 0 written; 2 no such session or database, or the output could not be\n"
     "written.\n",
     "write a session's runs and samples as JSON or CSV"},
    {"report", cmd_report,
     "usage: gcratchet report --session N|latest [--html FILE] [--md FILE] [--json FILE]\n"
     "                        [--base LABEL] [--fix LABEL] [--across | --no-across]\n"
     "                        [--db FILE]\n"
     "       gcratchet report --history --collector C --probe P --metric M [--since DATE]\n"
     "                        [--size S] [--git DIR] [--profile P] [--db URL] [--out FILE]\n"
     "\n"
     "Renders a stored session (latest: the newest one stored). With two or more arms it is\n"
     "the A/B comparison of ab (BASE and FIX: the session's first two arms unless named by\n"
     "label), printed as a table and written as HTML, Markdown or JSON, with ab's exit status;\n"
     "--across and --no-across judge the census as ab's do. With one build, --html writes a\n"
     "page with every sample by round.\n"
     "\n"
     "--history renders the series gcratchet history prints as an HTML page (to FILE, or\n"
     "stdout): one trend line per host over the session medians in commit order, and the\n"
     "value and band of the cell pinned in baselines/<profile>/<C>.json (profile default\n"
     "shared_ci) drawn across; a missing baseline or cell is said on the page, no band drawn.\n"
     "\n"
     "Exit status: a session of two or more arms, as ab's (0 no cell worse, 1 FIX is worse,\n"
     "2 could not judge); otherwise 0 rendered; 2 no such session or series, an unwritable\n"
     "file, or bad arguments.\n",
     "render a stored session, or a metric's history, as HTML, Markdown or JSON"},
    {"doctor", cmd_doctor,
     "usage: gcratchet doctor [--profile shared_ci|pinned_host]\n"
     "\n"
     "Checks this host against what the profile needs: an instruction meter (a PMU through\n"
     "perf, or valgrind), perf_event_paranoid, free memory, load (pinned_host wants a quiet\n"
     "host), and records the CPU governor, transparent hugepages, SMT and ASLR. Every line that\n"
     "is not ok says the exact fix.\n"
     "\n"
     "Exit status: 0 the profile can be measured here; 2 it cannot (see the MISSING lines).\n",
     "check this host against what a profile needs"},
    {"manifest", cmd_manifest,
     "usage: gcratchet manifest DIR [--collector NAME] [--version V] [--abi N | --protocol "
     "census]\n"
     "                          [--name NAME] [--git-commit REV] [--wrapper PROBE]...\n"
     "                          [--meters-off METER=WHY]... [--knob NAME]...\n"
     "                          [--capabilities LIST] [--argv JSON] [--argv-iterations JSON]\n"
     "                          [--digest classes|lib]... [--force]\n"
     "       gcratchet manifest DIR --check [--size LIST|all] [--reference NAME|DIR] [--db FILE]\n"
     "\n"
     "Writes DIR/manifest.json (docs/manifest.md) for a folder of probe executables built\n"
     "outside make: every executable named like a probe (NN_name) with its sha256. The build's\n"
     "name (--name) is the folder's; --collector (default: the folder's name) and --version\n"
     "(default unknown) are its identity, --git-commit (default none) its revision; --protocol\n"
     "census (the default) for any program, --abi N for C probes built against gcr.h (a probe\n"
     "that is a script or lacks the probe runtime is warned about). --wrapper PROBE declares a\n"
     "probe that starts the real program as a child (the valgrind meter then follows\n"
     "children). --meters-off valgrind=WHY leaves a meter off unless --meters names it;\n"
     "--knob NAME declares a variable its probes read (only declared knobs reach them);\n"
     "--capabilities collects,precise,... says what it does (none: nothing); --argv and\n"
     "--argv-iterations give every probe's command line as a JSON array ('[\"{exe}\",\n"
     "\"--size\", \"{size}\"]'); --digest classes|lib names that folder by its digest. --knob\n"
     "none and --meters-off none empty the list. --force replaces an existing manifest,\n"
     "keeping every field no option sets, with new digests: the folder becomes a new build.\n"
     "\n"
     "--check writes nothing: it runs the port checklist of docs/porting.md on the build in\n"
     "DIR, each probe as a session runs it (hermetic, through the scratch folder's link), at\n"
     "each size of --size (default ci), against the same probe of --reference (default gen):\n"
     "ok, a census, no warning, the reference's checksum, the premise not inert; and, at the\n"
     "first size, heap exhausted with status 3 under GCR_HEAP_MAX_MB=1. One line per check,\n"
     "a failed run's stderr under it, then \"N passed, N failed\".\n"
     "\n"
     "Exit status: 0 written, or every check passed; 1 a check failed; 2 bad arguments, no probe\n"
     "in DIR, a manifest already there, or the checks could not run.\n",
     "write a build folder's manifest (probe sha256s) for a foreign build"},
    {"minheap", cmd_minheap,
     "usage: gcratchet minheap [--collector NAME|--build DIR]... [--probes LIST]\n"
     "                         [--size ci|default|large] [--repeats N] [--out FILE]\n"
     "                         [--timeout S] [--db FILE] [--knob NAME=VALUE]...\n"
     "                         [--thp off|host] [--cpu N] [--no-aslr] [--pass-env NAME]\n"
     "                         [--env-offset MAX] [--lock-timeout SEC] [--idle-below LOAD]\n"
     "                         [--idle-timeout SEC]\n"
     "\n"
     "For each build and probe, searches for the smallest GCR_HEAP_MAX_MB (MiB) in which the\n"
     "probe completes with the checksum it prints without a limit: bracket from the heap it\n"
     "committed without one, bisect to 1/64 of the bound (at least 1 MiB), then run the\n"
     "answer --repeats times in all (default 3) and move up while any run fails, for\n"
     "collectors that are not deterministic. A run killed at --timeout counts as too small.\n"
     "Prints a table, stores each answer (the minheap table of --db) and writes --out FILE\n"
     "(JSON, format gcratchet-minheap). docs/sweeps.md has the method and its caveats.\n"
     "--cpu, --no-aslr, --pass-env, --env-offset, --lock-timeout and the --idle options are\n"
     "measure's: how the runs are made.\n"
     "\n"
     "Exit status: 0 every answer found; 2 a probe never fitted, broke (a crash, a wrong\n"
     "checksum) or could not run, or the search was interrupted.\n",
     "find each probe's minimum heap (GCR_HEAP_MAX_MB) per build"},
    {"sweep", cmd_sweep,
     "usage: gcratchet sweep [--collector NAME|--build DIR]... [--factors LIST]\n"
     "                       [--reference NAME] [--limit-only] [--repeats N]\n"
     "                       [--probes LIST] [--size ci|default|large] [--rounds N]\n"
     "                       [--warmup N] [--meters LIST] [--events LIST] [--seed N]\n"
     "                       [--jobs N] [--valgrind-runs N] [--timeout S] [--db FILE]\n"
     "                       [--knob NAME=VALUE]... [--thp off|host] [--cpu N] [--no-aslr]\n"
     "                       [--pass-env NAME] [--env-offset MAX] [--lock-timeout SEC]\n"
     "                       [--idle-below LOAD] [--idle-timeout SEC]\n"
     "\n"
     "Measures every probe on every build at heap sizes that are multiples of the probe's\n"
     "reference minimum heap: the smallest minimum among the builds swept (or --reference\n"
     "NAME's), taken from the store's minheap answers for the same build, probe, size and\n"
     "host, or searched as gcratchet minheap does (--repeats runs at the answer, default 3).\n"
     "At factor F a probe runs with GCR_HEAP_MAX_MB = ceil(F x reference) and, unless\n"
     "--limit-only, GCR_HEAP_MB the same (a fixed-size heap), so every build runs at the\n"
     "same absolute sizes. --factors (default 1.25,1.5,2,3,4,6) are decimals from 1 to 1000.\n"
     "One session whose arms are (build, factor) pairs, rounds interleaved as measure does\n"
     "(default 1 round, no warm-up); a run out of heap is stored as heap_exhausted, a\n"
     "missing point. Meters: rusage, census and perf unless --meters says (add valgrind for\n"
     "the Ir curves: one more run per point, most of a sweep's time). Prints the sweep's\n"
     "table; gcratchet report --session N renders the time-space curves and the lower-bound\n"
     "overhead (docs/sweeps.md).\n"
     "--cpu, --no-aslr, --pass-env, --env-offset, --lock-timeout and the --idle options are\n"
     "measure's: how the runs are made.\n"
     "\n"
     "Exit status: 0 every run completed or ran out of heap; 2 a run failed otherwise, a\n"
     "probe has no reference minimum, or the sweep could not run or was interrupted.\n",
     "measure every probe at multiples of its minimum heap"},
    {"push", cmd_push,
     "usage: gcratchet push --to URL [--db FILE] [--session N|all]\n"
     "\n"
     "Copies sessions of --db (default: every session) into the database URL names\n"
     "(postgresql://... or another file), each whole in one transaction, with their host,\n"
     "builds, arms, runs and samples. A session is known by its uuid: one already there is\n"
     "left as it is, so pushing twice stores it once. Session ids are the source's; each line\n"
     "says the id the session has in URL. A session still running on this host is skipped;\n"
     "one running on another host is copied as far as it got, and a later copy completes it.\n"
     "A session that cannot be copied is reported and skipped, and the others go on.\n"
     "\n"
     "Exit status: 0 every session copied or already there; 2 a database could not be opened,\n"
     "a session could not be copied, or the destination stopped answering (the sessions\n"
     "copied before are kept).\n",
     "copy sessions to another database (a fleet's PostgreSQL)"},
    {"pull", cmd_pull,
     "usage: gcratchet pull --from URL [--db FILE] [--session N|all]\n"
     "\n"
     "push the other way: copies sessions of URL (default: every session; N is URL's id) into\n"
     "--db, for a local analysis. Idempotent like push; a session copied while it still ran\n"
     "is completed by a later pull.\n"
     "\n"
     "Exit status: 0 every session copied or already there; 2 a database could not be opened\n"
     "or a session could not be copied.\n",
     "copy sessions from another database into --db"},
    {"queue", cmd_queue,
     "usage: gcratchet queue submit [--fleet URL] [--priority N] [--cpu TEXT] [--kernel TEXT]\n"
     "                              [--quiet] [--max-attempts N] [--no-split] VERB ARGS...\n"
     "       gcratchet queue status [--fleet URL] [--all]\n"
     "       gcratchet queue result [--fleet URL] REQUEST [--md FILE] [--json FILE] [--html FILE]\n"
     "       gcratchet queue cancel [--fleet URL] [--request] ID\n"
     "\n"
     "A measurement queue in the fleet's PostgreSQL database (--fleet, or GCR_FLEET_URL);\n"
     "gcratchet worker on each host runs it. submit queues `gcratchet VERB ARGS...` (VERB is\n"
     "measure, ab, ratchet, sweep, minheap or bisect; ab's BASE and FIX come first) as a\n"
     "request: each build it names is recorded with its manifest hash, and a worker whose copy\n"
     "differs refuses the job. A measure, ratchet or minheap of several builds is split into\n"
     "one job per build, a sweep of several --probes into one job per probe (the builds of a\n"
     "job run interleaved on one host; an ab is one job); --no-split keeps it whole. The job\n"
     "runs in this working directory, which must be the same path on the workers. --cpu: only\n"
     "a worker whose CPU model contains TEXT; --kernel: whose kernel release starts with TEXT;\n"
     "--quiet: only a worker started with --quiet. Higher --priority runs first (default 0); a\n"
     "job whose attempts (--max-attempts, default 3) all fail or lose their lease fails with\n"
     "the reasons. The verb's arguments may name no database: the sessions (and minheap's\n"
     "answers) go to the fleet's. A bisect is one job: --good and --bad are resolved to full\n"
     "hashes here, the worker builds each commit (the repository must be at the same path on\n"
     "the workers), and the steps' sessions, the bisect's record and its answer go to the\n"
     "fleet's database; result shows the answer, and --json FILE writes it. --resume and\n"
     "--json are refused.\n"
     "\n"
     "status: jobs by state, the workers with their last heartbeat and current job, and every\n"
     "job queued or running (--all: every job) with how long it waited. result: each part of\n"
     "a request, the worker and host that ran it and the fleet's sessions it stored; for a\n"
     "sweep split by probe, --md, --json and --html write its parts merged into one sweep's\n"
     "report (what gcratchet report writes for a sweep's session). cancel:\n"
     "a queued or running job (--request: every such job of a request); a running one's\n"
     "worker stops it at its next heartbeat and stores nothing.\n"
     "\n"
     "Exit status: 0 queued, shown or canceled (result: every part done); 2 bad arguments, the\n"
     "database could not be reached, nothing to cancel, or (result) a part not done.\n",
     "queue measurements for the fleet's workers; see and cancel them"},
    {"worker", cmd_worker,
     "usage: gcratchet worker [--fleet URL] [--name NAME] [--lease SEC] [--poll SEC]\n"
     "                        [--once|--drain] [--quiet] [--scratch DIR]\n"
     "\n"
     "Runs the fleet queue's jobs on this host (--fleet, or GCR_FLEET_URL). Registers itself\n"
     "as NAME (default: the host name) with the host's facts as doctor reads them, claims the\n"
     "next job its host matches (highest priority, then oldest), checks that each build of\n"
     "the job has the submitted manifest hash here (else refuses it, with the reason, and is\n"
     "never offered it again), and runs `gcratchet VERB ARGS --db SCRATCH` in the job's\n"
     "working directory under the bench lock (GCR_LOCK_FILE), SCRATCH a fresh database under\n"
     "--scratch (default: $TMPDIR or /tmp). While it runs the worker extends the job's lease\n"
     "(--lease, default 30 s, at least 3) every third of it; a job whose lease expires goes\n"
     "back to the queue for another worker, and this one's late result is then discarded.\n"
     "When the verb exits 0 or 1, its sessions (and minheap's answers) are stored in the\n"
     "fleet's database and the job marked done in one transaction; another exit is a failed\n"
     "attempt. A database that stops answering is waited for (retried with backoff up to\n"
     "8 s). --once: one job, then exit; --drain: until no job is left that it can run and\n"
     "none runs on any worker (a running job may come back); default: wait, looking every\n"
     "--poll seconds (default 5). --quiet declares this host quiet (for jobs submitted with\n"
     "--quiet).\n"
     "SIGINT or SIGTERM stops the running verb, records the attempt as failed, and exits.\n"
     "The verb runs in a process group of its own and dies with the worker; when its job is\n"
     "canceled or taken over, or the worker is stopped, it is asked to stop and its group\n"
     "killed 5 s later. Before each claim the worker checks its host (a scratch folder can be\n"
     "made under --scratch with 32 MiB free, its gcratchet can be executed): a host that\n"
     "cannot run jobs pauses the worker (--once, --drain: stops it, exit 2) and spends no\n"
     "job's attempts; a job whose stored arguments cannot be read fails at its claim.\n"
     "\n"
     "Exit status: 0 stopped, drained or done with --once (whatever became of the jobs); 2 bad\n"
     "arguments, a database error that waiting cannot mend (a newer queue schema), or a host\n"
     "that cannot run jobs (--once, --drain; or a verb that could not be started).\n",
     "run the fleet queue's jobs on this host"},
    {"history", cmd_history,
     "usage: gcratchet history --collector C --probe P --metric M [--since DATE] [--size S]\n"
     "                         [--git DIR] [--format table|json] [--db FILE]\n"
     "\n"
     "One metric of one probe across sessions: for every session (and arm) that measured it\n"
     "with a build of collector C, the median of its measured ok runs, with the commit, the\n"
     "host, the build and the size. In commit order, a commit's sessions together in the\n"
     "order they started: the order of the git history of DIR (default: the current\n"
     "directory's repository, if it is one; git rev-list --topo-order --all), and after the\n"
     "commits it has, the others where each was first measured; stderr says which points git\n"
     "ordered, and json's \"order\" too. --since keeps sessions started on or\n"
     "after DATE (2026-11-01 or 2026-11-01T12:00:00Z, UTC); --size keeps one size. json\n"
     "(format gcratchet-history) adds every run's value.\n"
     "\n"
     "Exit status: 0 printed; 2 nothing measured it, or bad arguments.\n",
     "one metric's session medians across commits and hosts"},
    {"bisect", cmd_bisect,
     "usage: gcratchet bisect --good REV --bad REV --probe P[,P...] --metric M\n"
     "                        (--collector NAME | --collector-dir DIR | --build-cmd CMD\n"
     "                        [--repo DIR]) [--make VAR=VALUE]... [--threshold N|N%]\n"
     "                        [--improved] [--size ci|default|large] [--rounds N]\n"
     "                        [--max-rounds N] [--warmup N] [--json FILE] [--cache DIR]\n"
     "                        [--db FILE] [--timeout SEC] [--jobs N] [--lock-timeout SEC]\n"
     "                        [--cpu N] [--no-aslr] [--pass-env NAME] [--thp off|host]\n"
     "                        [--build-timeout SEC]\n"
     "       gcratchet bisect --resume [ID] [--json FILE] [--db FILE]\n"
     "\n"
     "Finds the first commit between a good and a bad end (along the bad end's first parents)\n"
     "where the figure M of any of the probes moved: each commit is built, measured with this\n"
     "gcratchet, and the range halved as git bisect does.\n"
     "\n"
     "  --collector NAME     a shipped collector of this repository, built at each commit by\n"
     "                       scripts/build-rev.sh (the commit's probes and build rules)\n"
     "  --collector-dir DIR  an out-of-tree collector in a git repository: DIR at each commit,\n"
     "                       built with this checkout's make rules and probes (make collector)\n"
     "  --build-cmd CMD      anything else: sh -c CMD in a worktree of --repo (default: the\n"
     "                       current directory's repository) at each commit; it must leave a\n"
     "                       build folder with a manifest in $GCR_BISECT_OUT\n"
     "  --make VAR=VALUE     a make option for each build (CC=clang, EXTRA_CFLAGS=-O3)\n"
     "  --threshold N|N%     what counts as moved: an amount in M's unit or a percentage of the\n"
     "                       good end's figure (default: M's band in the baseline profiles)\n"
     "  --improved           find the commit that made it better (--old and --new are\n"
     "                       --good's and --bad's other names, --probes --probe's)\n"
     "  --size S             ci (default), default or large\n"
     "  --rounds N           paired mode: rounds per batch (default: 6 or more with several\n"
     "                       probes; 3 valgrind runs for an Ir that does not repeat)\n"
     "  --max-rounds N       paired mode: the budget per commit (default 3 batches); a commit\n"
     "                       still undecided then is \"cannot tell\" and skipped\n"
     "  --warmup N           paired mode: warm-up rounds per batch (default 1)\n"
     "  --json FILE          the whole bisect as JSON (- for stdout; the account goes to stderr)\n"
     "  --cache DIR          build folders, by commit and build options (default\n"
     "                       $GCR_BISECT_CACHE or results/bisect-builds)\n"
     "  --build-timeout SEC  a build still running after SEC seconds (default 1800; 0: no\n"
     "                       limit) is killed, its process group whole, and its commit\n"
     "                       skipped (\"build timed out after SEC s\"); --timeout bounds runs\n"
     "  --resume [ID]        continue an interrupted bisect (default the newest), or print a\n"
     "                       finished one's answer again; what it measured is not measured again\n"
     "\n"
     "Deciding a commit: an exact metric (Ir, census counters) whose ends each repeat\n"
     "themselves when measured twice is measured once per commit and compared with the ends;\n"
     "any other is measured in paired, interleaved runs against the good end and judged with\n"
     "ab's statistics, up to --max-rounds. A commit that does not build, whose probe fails or\n"
     "that cannot be told is skipped and named. Every step is stored (docs/bisect.md).\n"
     "\n"
     "Exit status: 0 the first bad (or improved) commit is named; 2 skips leave several\n"
     "candidates, the ends did not move, a step was interrupted (--resume continues), or bad\n"
     "arguments.\n",
     "find the commit that moved a figure, building and measuring each step"},
    {"explain", cmd_explain,
     "usage: gcratchet explain [--session N|latest] [--build LABEL] [--probe LIST]\n"
     "                         [--base LABEL | --against M [--against-build LABEL] |\n"
     "                          --profile P [--collector C] | --baseline FILE]\n"
     "                         [--top N] [--format text|md|json] [--db FILE]\n"
     "\n"
     "Where the instructions moved, function by function, as cg_diff shows it: cachegrind's\n"
     "Ir of every function each valgrind run kept (0.1% of the run and its 50 largest), per\n"
     "side each function's median over its runs. For every probe (or --probe LIST), the\n"
     "functions that moved, largest move first: both counts, the move, its part of the\n"
     "probe's Ir and its share of the probe's whole change, and the functions one side alone\n"
     "kept. Against what:\n"
     "  (default)        two arms of the session: BASE and FIX of an ab, or --base LABEL and\n"
     "                   --build LABEL\n"
     "  --against M      the same probes in session M (its arm --against-build, else its first)\n"
     "  --profile P      the functions the baseline baselines/<P>/<collector>.json keeps\n"
     "                   (its 20 largest per probe, pinned with it), or --baseline FILE's\n"
     "--session defaults to the newest stored; --top N lists N functions per probe (default:\n"
     "every one that moved); --format md and json for a pull request or a script.\n"
     "\n"
     "Exit status: 0 printed; 2 nothing to compare (no functions on both sides), bad\n"
     "arguments, a missing session or baseline.\n",
     "where the instructions moved between two sessions, arms, or a session and its baseline"},
    {"completion", cmd_completion,
     "usage: gcratchet completion bash\n"
     "       gcratchet completion options VERB\n"
     "       gcratchet completion synopsis\n"
     "\n"
     "What the verbs' option tables say. bash prints a bash completion script (verbs, each\n"
     "verb's options and first words, the values an option takes when its usage line lists\n"
     "them, file names for the rest): gcratchet completion bash >/etc/bash_completion.d/\n"
     "gcratchet, or eval \"$(gcratchet completion bash)\" in ~/.bashrc. options VERB prints\n"
     "VERB's options one a line, \"--rounds=\" for one that takes a value. synopsis prints\n"
     "every verb's usage lines, the block README.md's Commands section shows (make\n"
     "readme-synopsis writes it there).\n"
     "\n"
     "Exit status: 0 printed; 2 bad arguments or an unknown verb.\n",
     "bash completion, a verb's options and the usage synopsis, from the option tables"},
    {"version", cmd_version,
     "usage: gcratchet version\n"
     "       gcratchet --version\n"
     "\n"
     "Prints the harness's version and the git commit it was built from, with \", with\n"
     "uncommitted changes\" when harness/, reports/, collectors/include/ or the Makefile then\n"
     "differed from it; a build from a tree without .git (a tarball) says \"commit unknown\".\n"
     "\n"
     "Exit status: 0 printed; 2 bad arguments.\n",
     "the version and the commit this gcratchet was built from"},
    {NULL, NULL, NULL, NULL},
};

const struct cli_command *cli_commands(void)
{
	return commands;
}

const struct cli_command *cli_find_command(const char *name)
{
	for (const struct cli_command *c = commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

const char *cli_near_command(const char *name)
{
	struct cli_near nearest = {0};

	for (const struct cli_command *c = commands; c->name; c++)
		cli_nearer(name, c->name, &nearest);
	return cli_near_name(name, &nearest);
}

static int main_usage(FILE *f)
{
	fprintf(f,
	        "usage: gcratchet <command> [options]   (gcratchet <command> --help for more)\n\n");
	for (const struct cli_command *c = commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f,
	        "\nExit status: 0 ok, 1 regression found, 2 could not run or could not judge.\n");
	return f == stdout ? EXIT_OK : EXIT_UNJUDGED;
}

int main(int argc, char **argv)
{
	const struct cli_command *c;

	if (argc < 2)
		return main_usage(stderr);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return main_usage(stdout);
	if (strcmp(argv[1], "--version") == 0)
		return cmd_version(argc - 1, argv + 1);
	if (strcmp(argv[1], "help") == 0) {
		if (argc < 3)
			return main_usage(stdout);
		c = cli_find_command(argv[2]);
		if (!c) {
			const char *near = cli_near_command(argv[2]);
			if (near)
				return cli_error("help",
				                 "unknown command \"%s\" (did you mean %s?)",
				                 argv[2], near);
			return cli_error("help", "unknown command \"%s\"", argv[2]);
		}
		return cli_usage(c, 0);
	}
	c = cli_find_command(argv[1]);
	if (!c) {
		const char *near = cli_near_command(argv[1]);
		if (near) {
			fprintf(stderr, "gcratchet: unknown command \"%s\" (did you mean %s?)\n",
			        argv[1], near);
			return EXIT_UNJUDGED;
		}
		fprintf(stderr, "gcratchet: unknown command \"%s\"\n\n", argv[1]);
		return main_usage(stderr);
	}
	return c->fn(argc - 1, argv + 1);
}
