/*
 * JvmPauseLog.java — the pause log of a JVM build, from the JVM's own unified GC log, and the
 * census's "pauses" figures computed from it as collectors/common/pausestats.c computes them
 * for the C runtime (docs/census-protocol.md, "pauses").
 *
 * The wrapper (jvm/build.sh) starts the JVM with its GC log written to a file of its own,
 * named by the system property gcratchet.gclog, decorated with timenanos:
 *   serial, parallel, g1, shenandoah  -Xlog:gc:file=LOG:tn:filecount=0
 *   zgc                               -Xlog:gc+phases:file=LOG:tn:filecount=0
 * (ZGC logs its pauses, "Pause Mark Start" and the like, under gc+phases; the others under gc.)
 * Every pause is one line "[<tn>ns] GC(<n>) Pause <what> ... <d>ms": tn is the moment the line
 * was written, on System.nanoTime()'s clock (os::javaTimeNanos), at the end of the pause, and
 * d its duration as the JVM measured it, to the microsecond. A pause is [tn - d, tn]. These are
 * the figures -Xlog:gc prints, so the census's total and max are the log's own (tests/cli
 * t151 compares them on one run); they cover G1's Remark and Cleanup and the pauses of ZGC's
 * and Shenandoah's cycles, which no JDK 17 bean reports whole. Epsilon never pauses and has no
 * log.
 *
 * What this replaced: the stop-the-world beans' per-collection notifications give a
 * collection's start and end in whole milliseconds, so the census's pause total was 0.70-0.98
 * of the log's on Serial and 0.86-0.99 on G1, its max half the log's (7 against 14.06 ms), and
 * ZGC's and Shenandoah's sub-millisecond pauses read 0.
 *
 * The span runs from the run's start (System.nanoTime() before run()) to the end of the final
 * System.gc(); the pauses kept are those that start inside it (a start-up collection before
 * run() is not the probe's). The file is opened and its name removed as soon as the census
 * starts, so a JVM that crashes or is killed later leaves no log behind (tests/cli t112); the
 * JVM goes on writing to the open file, and it is read through the stream opened at the start
 * once the final collection has returned (the JVM writes and flushes each line inside the
 * pause). A log that cannot be read, or a
 * pause line that does not parse, leaves the section out with a warning on stderr: figures
 * from part of the log would pass for the whole.
 */
import com.sun.management.GcInfo;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

final class JvmPauseLog {
	/* The stop-the-world collectors' beans: used after full from their last GcInfo. */
	private static final String[] STW = {"Copy", "MarkSweepCompact", "PS Scavenge",
	                                     "PS MarkSweep", "G1 Young Generation",
	                                     "G1 Old Generation"};
	private static final String PROPERTY = "gcratchet.gclog";
	private static final long MS = 1000000L;
	private static final long[] WINDOWS_MS = {1, 2, 5, 10, 20, 50, 100};

	private final Path log;
	/* The log opened at start, its name already removed; null if it could not be opened. */
	private final InputStream in;
	private final String openError;
	private final long startNs;
	/* The log's pause total and max in ns once finish() has read it; -1 before, or if unread. */
	long totalNs = -1, maxNs = -1;

	private JvmPauseLog(Path log) {
		InputStream s = null;
		String why = null;
		this.log = log;
		try {
			s = Files.newInputStream(log);
			Files.deleteIfExists(log);
		} catch (IOException e) {
			why = e.getMessage();
		}
		this.in = s;
		this.openError = why;
		this.startNs = System.nanoTime();
	}

	/* Starts the log, just before the run; null where the wrapper named no log (Epsilon). */
	static JvmPauseLog start() {
		String p = System.getProperty(PROPERTY);
		return p == null || p.isEmpty() ? null : new JvmPauseLog(Paths.get(p));
	}

	private static boolean contains(String[] list, String s) {
		for (String x : list)
			if (x.equals(s))
				return true;
		return false;
	}

	/* The beans of a stop-the-world collector (Serial, Parallel, G1), or null for the others. */
	static List<GarbageCollectorMXBean> stopTheWorldBeans() {
		List<GarbageCollectorMXBean> all = ManagementFactory.getGarbageCollectorMXBeans();
		if (all.isEmpty())
			return null;
		for (GarbageCollectorMXBean b : all)
			if (!contains(STW, b.getName()))
				return null;
		return new ArrayList<>(all);
	}

	/* Each bean's collection count now. */
	static long[] counts(List<GarbageCollectorMXBean> beans) {
		long[] c = new long[beans.size()];
		for (int i = 0; i < c.length; i++)
			c[i] = beans.get(i).getCollectionCount();
		return c;
	}

	/*
	 * The heap's used bytes at the end of the last collection counted after `before` (the
	 * final System.gc()'s), from its GcInfo; -1 if there is none. Reading the heap after
	 * System.gc() returns counts what other threads allocated since (a TLAB of the JDK's own
	 * threads moved Serial's figure by up to 180 KB).
	 */
	static long usedAfterFinal(List<GarbageCollectorMXBean> beans, long[] before) {
		GcInfo last = null;
		Set<String> heapPools = new HashSet<>();
		for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans())
			if (p.getType() == MemoryType.HEAP)
				heapPools.add(p.getName());
		for (int i = 0; i < beans.size(); i++) {
			if (beans.get(i).getCollectionCount() <= before[i]
			    || !(beans.get(i) instanceof com.sun.management.GarbageCollectorMXBean))
				continue;
			GcInfo g = ((com.sun.management.GarbageCollectorMXBean)beans.get(i)).getLastGcInfo();
			if (g != null && (last == null || g.getEndTime() > last.getEndTime()))
				last = g;
		}
		if (last == null)
			return -1;
		long used = 0;
		for (Map.Entry<String, MemoryUsage> e : last.getMemoryUsageAfterGc().entrySet())
			if (heapPools.contains(e.getKey()))
				used += e.getValue().getUsed();
		return used;
	}

	private static String warn(String why) {
		System.err.println("gcratchet JVM census: no pause figures: " + why);
		return null;
	}

	/*
	 * One pause line's [start, end] in ns, or null if the line is not a pause. Throws
	 * NumberFormatException for a pause line whose figures do not parse.
	 */
	static long[] parse(String line) {
		int close = line.indexOf("ns] ");
		if (!line.startsWith("[") || close < 0)
			return null;
		String msg = line.substring(close + 4);
		int gc = msg.indexOf(") Pause ");
		if (!msg.startsWith("GC(") || gc < 0 || !msg.endsWith("ms"))
			return null;
		long at = Long.parseLong(line.substring(1, close));
		String d = msg.substring(msg.lastIndexOf(' ') + 1, msg.length() - 2);
		int dot = d.indexOf('.');
		if (dot < 1 || d.length() - dot - 1 != 3)
			throw new NumberFormatException("duration '" + d + "ms' is not ms to 3 decimals");
		long ns = Long.parseLong(d.substring(0, dot)) * MS + Long.parseLong(d.substring(dot + 1)) * 1000;
		return new long[] {at - ns, at};
	}

	/*
	 * Ends the log after the final System.gc(), which returned at gcEndNs: the "pauses" member
	 * (its text, from the key on), or null with a warning on stderr. Sets totalNs and maxNs.
	 */
	String finish(long gcEndNs) {
		List<String> lines;
		if (in == null)
			return warn("the GC log " + log + " could not be opened: " + openError);
		try (InputStream s = in) {
			String text = new String(s.readAllBytes(), StandardCharsets.ISO_8859_1);
			lines = Arrays.asList(text.split("\n", -1));
		} catch (IOException e) {
			return warn("the GC log " + log + " could not be read: " + e.getMessage());
		}
		List<long[]> kept = new ArrayList<>();
		for (String line : lines) {
			long[] p;
			try {
				p = parse(line);
			} catch (NumberFormatException e) {
				return warn(log + ": a pause line does not parse (" + e.getMessage() + "): " + line);
			}
			if (p != null && p[0] >= startNs && p[0] <= gcEndNs)
				kept.add(p);
		}
		long[][] pauses = kept.toArray(new long[0][]);
		Arrays.sort(pauses, (x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0])
		                                           : Long.compare(x[1], y[1]));
		long total = 0, max = 0;
		for (long[] x : pauses) {
			total += x[1] - x[0];
			max = Math.max(max, x[1] - x[0]);
		}
		totalNs = total;
		maxNs = max;
		return figures(pauses, startNs, gcEndNs);
	}

	/* pausestats.c's gcr_pause_intervals_check: sorted, not overlapping, inside the span. */
	static boolean intervalsOk(long[][] p, long spanStart, long spanEnd) {
		long prevEnd = spanStart;
		for (long[] x : p) {
			if (x[0] < prevEnd || x[1] < x[0] || x[1] > spanEnd)
				return false;
			prevEnd = x[1];
		}
		return true;
	}

	/* The cursor of pausestats.c: pauses [lo, hi) overlap the window, sum their whole lengths. */
	private static final class Cursor {
		int lo, hi;
		long sum;
	}

	private static long pausedAt(long[][] p, Cursor c, long t, long w) {
		while (c.hi < p.length && p[c.hi][0] < t + w) {
			c.sum += p[c.hi][1] - p[c.hi][0];
			c.hi++;
		}
		while (c.lo < c.hi && p[c.lo][1] <= t) {
			c.sum -= p[c.lo][1] - p[c.lo][0];
			c.lo++;
		}
		if (c.lo >= c.hi)
			return 0;
		long paused = c.sum;
		if (p[c.lo][0] < t)
			paused -= t - p[c.lo][0];
		if (p[c.hi - 1][1] > t + w)
			paused -= p[c.hi - 1][1] - (t + w);
		return paused;
	}

	private static long clamp(long t, long lo, long hi) {
		return t < lo ? lo : t > hi ? hi : t;
	}

	/* gcr_mmu_max_paused_ns: the most pause time overlapping any window inside the span. */
	static long maxPaused(long[][] p, long spanStart, long spanEnd, long window) {
		Cursor starts = new Cursor(), ends = new Cursor();
		long span = spanEnd - spanStart, w = Math.min(window, span), last = spanEnd - w;
		long best = pausedAt(p, starts, spanStart, w);
		for (long[] x : p)
			best = Math.max(best, pausedAt(p, starts, clamp(x[0], spanStart, last), w));
		for (long[] x : p) {
			long t = x[1] >= spanStart + w ? x[1] - w : spanStart;
			best = Math.max(best, pausedAt(p, ends, clamp(t, spanStart, last), w));
		}
		return Math.max(best, pausedAt(p, ends, last, w));
	}

	/* gcr_mmu: 1 for an empty span or a zero window. */
	static double mmu(long[][] p, long spanStart, long spanEnd, long window) {
		long w = Math.min(window, spanEnd - spanStart);
		if (w == 0)
			return 1.0;
		return (double)(w - maxPaused(p, spanStart, spanEnd, window)) / (double)w;
	}

	/* gcr_quantile_sorted: nearest rank, ceil(n * q) - 1, at least the first. */
	static long quantile(long[] sorted, int qPer10000) {
		long rank = ((long)sorted.length * qPer10000 + 9999) / 10000;
		return sorted[rank > 0 ? (int)rank - 1 : 0];
	}

	/* gcr_pause_bucket: floor(log2(ns)), 0 for 0 and 1. */
	static int bucket(long ns) {
		return 63 - Long.numberOfLeadingZeros(ns | 1);
	}

	/* The "pauses" member from pauses in ns (sorted) over the span [s, e]. */
	private static String figures(long[][] ns, long s, long e) {
		long[] wall = new long[ns.length];
		long total = 0, max = 0;
		for (int k = 0; k < ns.length; k++) {
			wall[k] = ns[k][1] - ns[k][0];
			total += wall[k];
			max = Math.max(max, wall[k]);
		}
		StringBuilder out = new StringBuilder();
		out.append("\"pauses\": {\n    \"count\": ").append(ns.length)
		    .append(", \"dropped\": 0, \"span_ns\": ").append(e - s)
		    .append(",\n    \"wall_total_ns\": ").append(total)
		    .append(", \"wall_max_ns\": ").append(max);
		if (!intervalsOk(ns, s, e)) {
			System.err.println("gcratchet JVM census: a pause of the log is out of order or"
			                   + " outside the run: no quantiles, histogram or MMU");
			return out.append("\n  }").toString();
		}
		if (ns.length > 0) {
			long[] sorted = wall.clone();
			Arrays.sort(sorted);
			out.append(",\n    \"wall_p50_ns\": ").append(quantile(sorted, 5000))
			    .append(", \"wall_p90_ns\": ").append(quantile(sorted, 9000))
			    .append(", \"wall_p99_ns\": ").append(quantile(sorted, 9900));
		}
		int[] hist = new int[64];
		for (long v : wall)
			hist[bucket(v)]++;
		String sep = "";
		out.append(",\n    \"histogram_log2_ns\": {");
		for (int k = 0; k < 64; k++) {
			if (hist[k] > 0) {
				out.append(sep).append('"').append(k).append("\": ").append(hist[k]);
				sep = ", ";
			}
		}
		out.append('}');
		sep = "";
		out.append(",\n    \"mmu\": {");
		for (long w : WINDOWS_MS) {
			out.append(sep).append('"').append(w).append("ms\": ")
			    .append(String.format(Locale.ROOT, "%.6f", mmu(ns, s, e, w * MS)));
			sep = ", ";
		}
		return out.append("}\n  }").toString();
	}
}
