/*
 * JvmPauseLog.java — the pause log of a JVM build, from the JVM's per-collection notifications
 * (com.sun.management.GarbageCollectionNotificationInfo), and the census's "pauses" figures
 * computed from it as collectors/common/pausestats.c computes them for the C runtime
 * (docs/census-protocol.md, "pauses").
 *
 * Kept only where the stop-the-world beans cover every pause: Serial (Copy, MarkSweepCompact),
 * Parallel (PS Scavenge, PS MarkSweep), and G1 (G1 Young Generation, G1 Old Generation) in a
 * run where no concurrent cycle ran. JDK 17 reports G1's Remark and Cleanup pauses through no
 * bean, so a run in which G1's marking thread ("G1 Main Marker", /proc/self/task) woke has no
 * log. ZGC and Shenandoah have none: their Pauses beans count whole milliseconds and their
 * pauses last well under one, so every figure would read 0. Epsilon never pauses.
 *
 * Resolution: a notification gives the start and end of a collection in whole milliseconds
 * since the VM finished initialising (not since it started: RuntimeMXBean.getUptime() is
 * tens of ms ahead of that clock). So every duration, quantile and span here is a whole number
 * of milliseconds × 10^6, a reading that is off the true duration by less than 1 ms either
 * way. The log has no CPU time, so no cpu_* member is sent (absent, never a fake zero). The
 * MMU windows of 1, 2 and 5 ms are not sent: there the error of one reading is 20% to 100% of
 * the window. The histogram is sent only when no pause reads 0 ms: a 0 would fall in bucket 0,
 * a pause of 1 ns.
 *
 * The span. The run's start and end are read with System.nanoTime(), and the notifications'
 * clock is that one, shifted by an offset the JVM does not publish. The final System.gc()
 * places it: its collection lies inside the call, so its start and end readings bound the
 * offset to an interval about a millisecond wider than the call's overhead. span_ns is the
 * run's span at the edges of that interval, in whole ms: it contains the run and is longer
 * than it by that width (2 to 3 ms on a ci run here). If the readings contradict the call's
 * bounds, the section is left out.
 *
 * The listener runs on the JVM's notification thread: what it allocates is not the main
 * thread's. It is registered before the allocation count starts and keeps only collections
 * numbered after that (GcInfo.getId() is the bean's count). At the first collection that
 * thread loads the JDK's notification classes (~100) and resolves this class's references to
 * the JDK through the application class loader, which the main thread shares: Probe.preload()
 * resolves them all before the count starts, so the main thread's census alloc_bytes is the
 * same with the listener as without it, in every run. Notifications arrive after the
 * collection; finish() waits up to 1 s for as many as the beans counted, and leaves the
 * section out with a warning on stderr if they do not all come.
 */
import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

final class JvmPauseLog implements NotificationListener {
	/* The stop-the-world beans: every pause of Serial, Parallel and G1 (less G1's Remark, Cleanup). */
	private static final String[] STW = {"Copy", "MarkSweepCompact", "PS Scavenge",
	                                     "PS MarkSweep", "G1 Young Generation",
	                                     "G1 Old Generation"};
	private static final String G1_MARKER = "G1 Main Marker";
	private static final long MS = 1000000L;
	private static final long WAIT_NS = 1000000000L;
	private static final long[] WINDOWS_MS = {10, 20, 50, 100};

	private final List<GarbageCollectorMXBean> beans;
	private final long[] base;
	private final long markerAtStart;
	private final long startNs;
	/* The heap's pools, by name: a GcInfo's usage maps name every pool, heap or not. */
	private final Set<String> heapPools = new HashSet<>();
	/* Guarded by this: bean index, GcInfo id, start and end (ms) of each collection kept. */
	private int n;
	private int[] bean = new int[64];
	private long[] id = new long[64], startMs = new long[64], endMs = new long[64];

	private JvmPauseLog(List<GarbageCollectorMXBean> beans, long markerAtStart) {
		this.beans = beans;
		this.base = new long[beans.size()];
		this.markerAtStart = markerAtStart;
		for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans())
			if (p.getType() == MemoryType.HEAP)
				heapPools.add(p.getName());
		for (int i = 0; i < beans.size(); i++)
			((NotificationEmitter)beans.get(i)).addNotificationListener(this, null, i);
		/* After registering: a collection counted here is before the run and is not kept. */
		for (int i = 0; i < beans.size(); i++)
			base[i] = beans.get(i).getCollectionCount();
		startNs = System.nanoTime();
	}

	/* Starts the log, just before the run; null where the collector keeps none (above). */
	static JvmPauseLog start() {
		List<GarbageCollectorMXBean> all = ManagementFactory.getGarbageCollectorMXBeans();
		boolean g1 = false;
		if (all.isEmpty())
			return null;
		for (GarbageCollectorMXBean b : all) {
			if (!contains(STW, b.getName()) || !(b instanceof NotificationEmitter))
				return null;
			g1 |= b.getName().startsWith("G1 ");
		}
		long marker = g1 ? g1MarkerSwitches() : 0;
		if (marker < 0) {
			System.err.println("gcratchet JVM census: no '" + G1_MARKER
			                   + "' thread in /proc/self/task: no pause log (G1's Remark"
			                   + " and Cleanup pauses could not be ruled out)");
			return null;
		}
		return new JvmPauseLog(new ArrayList<>(all), g1 ? marker : -1);
	}

	private static boolean contains(String[] list, String s) {
		for (String x : list)
			if (x.equals(s))
				return true;
		return false;
	}

	/*
	 * Context switches of G1's marking thread: it sleeps until a concurrent cycle starts, so
	 * a count that moved means a cycle may have run (and with it Remark and Cleanup). -1 if
	 * there is no such thread.
	 */
	private static long g1MarkerSwitches() {
		try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc/self/task"))) {
			for (Path t : tasks) {
				if (!Files.readString(t.resolve("comm")).trim().equals(G1_MARKER))
					continue;
				long sw = 0;
				for (String line : Files.readAllLines(t.resolve("status")))
					if (line.startsWith("voluntary_ctxt_switches:")
					    || line.startsWith("nonvoluntary_ctxt_switches:"))
						sw += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
				return sw;
			}
		} catch (IOException | NumberFormatException e) {
			/* No answer is no log. */
		}
		return -1;
	}

	@Override
	public void handleNotification(Notification note, Object handback) {
		if (!note.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION))
			return;
		int i = (Integer)handback;
		GcInfo g = GarbageCollectionNotificationInfo.from((CompositeData)note.getUserData())
		               .getGcInfo();
		synchronized (this) {
			if (g.getId() <= base[i])
				return;
			if (n == startMs.length) {
				bean = Arrays.copyOf(bean, 2 * n);
				id = Arrays.copyOf(id, 2 * n);
				startMs = Arrays.copyOf(startMs, 2 * n);
				endMs = Arrays.copyOf(endMs, 2 * n);
			}
			bean[n] = i;
			id[n] = g.getId();
			startMs[n] = g.getStartTime();
			endMs[n] = g.getEndTime();
			n++;
			notifyAll();
		}
	}

	/* Each bean's collection count now. */
	long[] counts() {
		long[] c = new long[beans.size()];
		for (int i = 0; i < c.length; i++)
			c[i] = beans.get(i).getCollectionCount();
		return c;
	}

	private void stop() {
		for (GarbageCollectorMXBean b : beans) {
			try {
				((NotificationEmitter)b).removeNotificationListener(this);
			} catch (ListenerNotFoundException e) {
				/* Already gone: nothing to stop. */
			}
		}
	}

	/* Waits up to WAIT_NS for `want` notifications in all; returns how many came. */
	private synchronized int await(long want) {
		long deadline = System.nanoTime() + WAIT_NS;
		for (long left = WAIT_NS; n < want && left > 0; left = deadline - System.nanoTime()) {
			try {
				wait(Math.max(1, left / MS));
			} catch (InterruptedException ie) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		return n;
	}

	/*
	 * Waits, before the final System.gc(), for the notifications of the collections counted
	 * in `counts`: a notification in flight during that collection keeps its objects (a
	 * GcInfo, with every pool's usage before and after) alive, and heap_used_after_full_bytes
	 * moved by up to 350 KB between runs on Serial.
	 */
	void settle(long[] counts) {
		long want = 0;
		for (int i = 0; i < counts.length; i++)
			want += counts[i] - base[i];
		await(want);
	}

	/*
	 * The heap's used bytes at the end of the last collection counted after `before` (the
	 * final System.gc()'s), from its GcInfo; -1 if there is none. Reading the heap after
	 * System.gc() returns instead counts what other threads allocated since: the notification
	 * thread starts on that collection's notification at once, and the first TLAB it took
	 * (~180 KB) was in one Serial run in six.
	 */
	long usedAfterFinal(long[] before) {
		GcInfo last = null;
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
	 * Ends the log after the final System.gc(), called between nanoTime() readings gcStartNs
	 * and gcEndNs with the beans' counts `before` it: the "pauses" member (its text, from the
	 * key on), or null with a warning on stderr when the figures would not be whole.
	 */
	String finish(long[] before, long gcStartNs, long gcEndNs) {
		long[] after = counts();
		long want = 0;
		for (int i = 0; i < after.length; i++)
			want += after[i] - base[i];
		if (markerAtStart >= 0 && g1MarkerSwitches() != markerAtStart) {
			stop();
			return warn("G1's marking thread ran: a concurrent cycle's Remark and Cleanup "
			            + "pauses are in no JDK 17 bean, so the log would miss them");
		}
		int got;
		long[] s, e, ids;
		int[] b;
		synchronized (this) {
			got = await(want);
			s = Arrays.copyOf(startMs, n);
			e = Arrays.copyOf(endMs, n);
			b = Arrays.copyOf(bean, n);
			ids = Arrays.copyOf(id, n);
		}
		stop();
		if (got != want)
			return warn(got + " collection notifications arrived within 1 s, the beans counted "
			            + want);
		/* The final collection's readings place the run on the notifications' clock. */
		long finalStart = Long.MAX_VALUE, finalEnd = Long.MIN_VALUE;
		for (int k = 0; k < got; k++) {
			if (ids[k] > before[b[k]]) {
				finalStart = Math.min(finalStart, s[k]);
				finalEnd = Math.max(finalEnd, e[k]);
			}
		}
		if (finalStart == Long.MAX_VALUE)
			return warn("the final System.gc() reported no collection");
		/* offset = nanoTime - notification clock in ns: in (lo, hi]. */
		long lo = gcStartNs - (finalStart + 1) * MS, hi = gcEndNs - finalEnd * MS;
		if (hi <= lo)
			return warn("the final collection's readings (" + finalStart + ".." + finalEnd
			            + " ms) do not fit in the System.gc() call");
		long spanStart = Math.floorDiv(startNs - hi, MS), spanEnd = -Math.floorDiv(lo - gcEndNs, MS);
		return figures(sortByStart(s, e), spanStart, spanEnd);
	}


	/* The pauses as {start, end} pairs in ms, sorted by start (then end). */
	private static long[][] sortByStart(long[] s, long[] e) {
		long[][] p = new long[s.length][];
		for (int k = 0; k < s.length; k++)
			p[k] = new long[] {s[k], e[k]};
		Arrays.sort(p, (x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0])
		                                                 : Long.compare(x[1], y[1]));
		return p;
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

	/* The "pauses" member from pauses in ms (sorted) over the span [spanStartMs, spanEndMs]. */
	private static String figures(long[][] p, long spanStartMs, long spanEndMs) {
		long[][] ns = new long[p.length][];
		long[] wall = new long[p.length];
		long total = 0, max = 0;
		boolean zero = false;
		for (int k = 0; k < p.length; k++) {
			ns[k] = new long[] {p[k][0] * MS, p[k][1] * MS};
			wall[k] = ns[k][1] - ns[k][0];
			total += wall[k];
			max = Math.max(max, wall[k]);
			zero |= wall[k] == 0;
		}
		long s = spanStartMs * MS, e = spanEndMs * MS;
		StringBuilder out = new StringBuilder();
		out.append("\"pauses\": {\n    \"count\": ").append(p.length)
		    .append(", \"dropped\": 0, \"span_ns\": ").append(e - s)
		    .append(",\n    \"wall_total_ns\": ").append(total)
		    .append(", \"wall_max_ns\": ").append(max);
		if (!intervalsOk(ns, s, e)) {
			System.err.println("gcratchet JVM census: a pause of the log is out of order or"
			                   + " outside the run: no quantiles, histogram or MMU");
			return out.append("\n  }").toString();
		}
		if (p.length > 0) {
			long[] sorted = wall.clone();
			Arrays.sort(sorted);
			out.append(",\n    \"wall_p50_ns\": ").append(quantile(sorted, 5000))
			    .append(", \"wall_p90_ns\": ").append(quantile(sorted, 9000))
			    .append(", \"wall_p99_ns\": ").append(quantile(sorted, 9900));
		}
		if (!zero) {
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
		}
		String sep = "";
		out.append(",\n    \"mmu\": {");
		for (long w : WINDOWS_MS) {
			out.append(sep).append('"').append(w).append("ms\": ")
			    .append(String.format(Locale.ROOT, "%.6f", mmu(ns, s, e, w * MS)));
			sep = ", ";
		}
		return out.append("}\n  }").toString();
	}
}
