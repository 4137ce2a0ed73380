/*
 * JvmCensus.java — the census of a JVM probe, read from the JVM's management beans and, for
 * its pauses, from the JVM's own GC log.
 *
 * Which collector runs is read from the VM's own flags (UseSerialGC, ..., UseEpsilonGC
 * through HotSpotDiagnosticMXBean), so a wrapper started with the wrong flag reports the
 * collector it really got. Its name is "jvm-serial", ..., the build folder's collector name;
 * its version is java.vm.version.
 *
 * The GarbageCollectorMXBean names differ per collector; each is mapped here, by name:
 *   Copy, PS Scavenge, G1 Young Generation             -> minor_collections (pauses)
 *   MarkSweepCompact, PS MarkSweep, G1 Old Generation  -> major_collections (pauses)
 *   ZGC Cycles, Shenandoah Cycles                      -> major_collections (JDK 17's ZGC and
 *        Shenandoah are not generational: every cycle covers the whole heap, so
 *        minor_collections is a true 0); their time is concurrent work, not pause
 *   ZGC Pauses, Shenandoah Pauses                      -> nothing (their pauses come from the log)
 *   Epsilon Heap                                       -> nothing: Epsilon never collects, so
 *        both counts and the pause total are true zeros
 * A bean this table does not know makes the counts unknown (absent) and is named on stderr,
 * so a later JDK's new bean cannot be silently dropped from a count.
 *
 * Counters (unknown is absent, never a fake zero):
 *   minor_collections, major_collections  as above, after the final System.gc()
 *   pause_total_ns, pause_max_ns  the pause log's total and longest pause (below), the
 *                         figures -Xlog:gc prints; where no log was read, the total is the
 *                         stop-the-world beans' collection time, whole milliseconds (Epsilon:
 *                         a true 0), and the max absent
 *   alloc_bytes           the main thread's allocated bytes (ThreadMXBean), from the start
 *                         of run() to its end: the probe's own allocation, the same in every
 *                         run. What the census calls made inside run() allocate (premise
 *                         checks read the beans) is measured around each call and left out;
 *                         every class the run names is loaded before the count starts
 *                         (Probe.preload, which says why), and the end is read before
 *                         finish() allocates anything
 *   heap_committed_peak_bytes  the largest of the heap's committed size at the start and at
 *                         the end and each heap pool's own peak: the beans keep no peak of
 *                         the whole heap, and a sum of the pools' peaks (reached at different
 *                         times) overstates it. The wrappers fix -Xms = -Xmx, so the heap is
 *                         committed whole from the start and this is the peak; on Epsilon,
 *                         one pool, its own peak is the heap's
 *   heap_used_after_full_bytes the heap's used bytes at the end of the final System.gc():
 *                         on Serial, Parallel and G1 the heap pools' usage after that
 *                         collection from its GcInfo (JvmPauseLog.usedAfterFinal says why);
 *                         otherwise read from the heap right after the call
 *                         (not on Epsilon, where System.gc() does nothing)
 * Not reported: alloc_objects, copied_*, promoted_*, freed_*, barrier_recorded (the beans do
 * not count them).
 *
 * The pause log (JvmPauseLog, which says how it is read): on every collector but Epsilon the
 * JVM's unified GC log, written by the JVM to a file the wrapper names, gives the "pauses"
 * section (docs/census-protocol.md) and the capability pause_log: count (every logged pause
 * of the run, the final System.gc()'s included: a collection each on Serial, Parallel and G1,
 * G1's Remark and Cleanup too; the pauses of each ZGC or Shenandoah cycle), span, wall total
 * and max (equal to pause_total_ns and pause_max_ns), p50/p90/p99, the log2 histogram and MMU
 * at every window, to the microsecond the log prints. No cpu_* figures: the log has no CPU
 * time. Epsilon never collects and sends no section.
 *
 * The "triggers" section (JvmTriggers, which maps the JVM's causes to the protocol's names):
 * on every collector, the collections of the beans counted above by what started them, from
 * each collection's notification, registered before the count starts; left out when a
 * notification did not come or the counts are unknown.
 *
 * The "latency" section of a request-serving probe (probe_latency_record and
 * probe_json_latency in probes/runtime/probe.c, the same members, quantiles and metering):
 * the probe hands over each request's service time (System.nanoTime(), end - start) and the
 * loop's span (latencyRecord), and the figures are computed only when the census is written.
 * The array stays reachable through the final System.gc(), so its 8 bytes a request are in
 * heap_used_after_full_bytes, as the C probe's malloc'd array is in its resident memory.
 */
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

final class JvmCensus {
	/* Flag, census name, capabilities. */
	private static final String[][] COLLECTORS = {
	    {"UseSerialGC", "jvm-serial", "collects precise moving generational barrier"},
	    {"UseParallelGC", "jvm-parallel", "collects precise moving generational barrier"},
	    /*
	     * clock_paced (docs/census-protocol.md): G1 sizes its young generation to a pause-time
	     * goal, ZGC and Shenandoah start concurrent cycles from time-based heuristics, so their
	     * counts and what they hold move with the host's speed.
	     */
	    {"UseG1GC", "jvm-g1", "collects precise moving generational barrier clock_paced"},
	    {"UseZGC", "jvm-zgc", "collects precise moving barrier clock_paced"},
	    {"UseShenandoahGC", "jvm-shenandoah", "collects precise moving barrier clock_paced"},
	    {"UseEpsilonGC", "jvm-epsilon", ""},
	};
	private static final String[] MINOR = {"Copy", "PS Scavenge", "G1 Young Generation"};
	private static final String[] MAJOR = {"MarkSweepCompact", "PS MarkSweep",
	                                       "G1 Old Generation", "ZGC Cycles",
	                                       "Shenandoah Cycles"};
	private static final String[] PAUSE_ONLY = {"ZGC Pauses", "Shenandoah Pauses",
	                                            "Epsilon Heap"};
	private static final String[] NOT_PAUSES = {"ZGC Cycles", "Shenandoah Cycles"};
	/* The latency section's quantiles, per 10000, and their names (probe_json_latency's). */
	private static final int[] LATENCY_Q = {5000, 9900, 9990, 10000};
	private static final String[] LATENCY_QNAME = {"p50", "p99", "p999", "max"};

	private static long allocAtStart = -1;
	/* Bytes the census's own calls allocated on this thread inside run(). */
	private static long allocByCensus;
	private static long committedAtStart = -1;
	/* null where the collector keeps no pause log (JvmPauseLog: Epsilon). */
	private static JvmPauseLog pauseLog;
	/* A stop-the-world collector's beans (JvmPauseLog.stopTheWorldBeans), or null. */
	private static List<GarbageCollectorMXBean> stwBeans;
	/* The "pauses" member (JvmPauseLog.finish), or null: absent. */
	private static String pauses;
	/* null where the census sends no triggers (JvmTriggers.start). */
	private static JvmTriggers triggerLog;
	/* The "triggers" member (JvmTriggers.finish), or null: absent. */
	private static String triggers;
	/* What a request-serving probe handed over (latencyRecord); null: none. */
	private static long[] latencyServiceNs;
	private static long latencySpanNs;

	String collector = "jvm-unknown";
	String version = System.getProperty("java.vm.version", "unknown");
	String capabilities = "";
	boolean collects;
	/* -1: unknown. */
	long minor = -1, major = -1, pauseNs = -1, pauseMaxNs = -1, allocBytes = -1,
	     committedPeak = -1, usedAfterFull = -1;
	long[] memory = {-1, -1};

	private static String[] concat(String[] a, String[] b) {
		String[] c = Arrays.copyOf(a, a.length + b.length);
		System.arraycopy(b, 0, c, a.length, b.length);
		return c;
	}

	private static boolean contains(String[] list, String s) {
		for (String x : list)
			if (x.equals(s))
				return true;
		return false;
	}

	/*
	 * The main thread's allocation counter, or null. Looked up once, when the class is
	 * initialised (before run()): ManagementFactory's lookup allocates ~800 bytes a call.
	 */
	private static final com.sun.management.ThreadMXBean THREADS = threads();

	private static com.sun.management.ThreadMXBean threads() {
		java.lang.management.ThreadMXBean t = ManagementFactory.getThreadMXBean();
		if (t instanceof com.sun.management.ThreadMXBean) {
			com.sun.management.ThreadMXBean s = (com.sun.management.ThreadMXBean)t;
			if (s.isThreadAllocatedMemorySupported() && s.isThreadAllocatedMemoryEnabled())
				return s;
		}
		return null;
	}

	/*
	 * Called just before run(): the allocation count starts here, after the pause log's
	 * listeners are registered (registering allocates on this thread).
	 */
	static void start() {
		pauseLog = JvmPauseLog.start();
		stwBeans = JvmPauseLog.stopTheWorldBeans();
		triggerLog = JvmTriggers.start(concat(MINOR, MAJOR), PAUSE_ONLY);
		committedAtStart = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
		if (THREADS != null)
			allocAtStart = THREADS.getCurrentThreadAllocatedBytes();
	}

	private static long allocatedNow() {
		return THREADS != null ? THREADS.getCurrentThreadAllocatedBytes() : 0;
	}

	/* Collections so far (minor + major), for premises read inside run(); -1 if unknown. */
	static long collectionsSoFar() {
		long before = allocatedNow();
		JvmCensus c = new JvmCensus();
		c.readCounts();
		allocByCensus += allocatedNow() - before;
		return c.minor < 0 || c.major < 0 ? -1 : c.minor + c.major;
	}

	/*
	 * Stop-the-world events so far, each of which scans the threads' stacks: the collections
	 * of a stop-the-world collector, the pauses of ZGC and Shenandoah (their cycles run
	 * concurrently, so whether one ends inside a short window is timing; every cycle's
	 * pauses scan the stacks). -1 if unknown.
	 */
	static long stackScansSoFar() {
		long before = allocatedNow(), n = 0;
		boolean concurrent = false;
		for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans())
			concurrent |= contains(NOT_PAUSES, b.getName());
		for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
			String name = b.getName();
			boolean counts = concurrent ? name.endsWith(" Pauses")
			                            : contains(MINOR, name) || contains(MAJOR, name);
			if (counts)
				n += b.getCollectionCount();
		}
		allocByCensus += allocatedNow() - before;
		return n;
	}

	/* The old generation's used bytes now, for the promotion premise; -1 if no such pool. */
	static long oldGenUsed() {
		long before = allocatedNow(), used = -1;
		for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
			String n = p.getName();
			if (n.equals("Tenured Gen") || n.equals("PS Old Gen") || n.equals("G1 Old Gen"))
				used = p.getUsage().getUsed();
		}
		allocByCensus += allocatedNow() - before;
		return used;
	}

	/*
	 * For a probe that serves requests one after another: every request's service time in
	 * ns, in the order served, and the span from the first start to the last end. The census
	 * owns the array from then on. Allocates nothing, so it may be called inside run().
	 */
	static void latencyRecord(long[] serviceNs, long spanNs) {
		latencyServiceNs = serviceNs;
		latencySpanNs = spanNs;
	}

	/* Called just after run(): ends the allocation count, runs the final full collection. */
	static JvmCensus finish() {
		long end = allocatedNow();
		JvmCensus c = new JvmCensus();
		if (THREADS != null && allocAtStart >= 0)
			c.allocBytes = end - allocAtStart - allocByCensus;
		c.identify();
		long[] before = stwBeans != null ? JvmPauseLog.counts(stwBeans) : null;
		if (triggerLog != null)
			triggerLog.settle();
		System.gc();
		long gcEndNs = System.nanoTime();
		if (stwBeans != null)
			c.usedAfterFull = JvmPauseLog.usedAfterFinal(stwBeans, before);
		else if (c.collects)
			c.usedAfterFull = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
		if (pauseLog != null)
			pauses = pauseLog.finish(gcEndNs);
		c.readCounts();
		/* The log's own figures, where it was read: the beans' are whole milliseconds. */
		if (pauses != null) {
			c.pauseNs = pauseLog.totalNs;
			c.pauseMaxNs = pauseLog.maxNs;
		}
		/* Only with the counts they add up to. */
		if (triggerLog != null)
			triggers = c.minor >= 0 && c.major >= 0 ? triggerLog.finish() : null;
		long peak = Math.max(committedAtStart,
		                     ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted());
		for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
			if (p.getType() == MemoryType.HEAP && p.getPeakUsage() != null)
				peak = Math.max(peak, p.getPeakUsage().getCommitted());
		}
		c.committedPeak = peak;
		c.memory = Probe.readMemory();
		return c;
	}

	private void identify() {
		com.sun.management.HotSpotDiagnosticMXBean hs =
		    ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
		for (String[] k : COLLECTORS) {
			try {
				if (hs.getVMOption(k[0]).getValue().equals("true")) {
					collector = k[1];
					capabilities = k[2];
					collects = !k[2].isEmpty();
					return;
				}
			} catch (IllegalArgumentException e) {
				/* An option this VM lacks: not this collector. */
			}
		}
		System.err.println("gcratchet JVM census: cannot tell which collector this VM runs");
	}

	private void readCounts() {
		long mi = 0, ma = 0, pause = 0;
		boolean known = true, pauseKnown = true;

		for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
			String n = b.getName();
			long count = b.getCollectionCount(), ms = b.getCollectionTime();
			if (contains(MINOR, n))
				mi += count;
			else if (contains(MAJOR, n))
				ma += count;
			else if (!contains(PAUSE_ONLY, n)) {
				System.err.println("gcratchet JVM census: unknown collector bean '" + n
				                   + "': collection counts left out");
				known = false;
			}
			if (contains(NOT_PAUSES, n)) {
				pauseKnown = false;
				continue;
			}
			if (ms < 0)
				pauseKnown = false;
			else
				pause += ms * 1000000L;
		}
		/* Epsilon (no beans) and the non-generational collectors do no minor collections. */
		if (known) {
			minor = mi;
			major = ma;
		}
		if (known && pauseKnown)
			pauseNs = pause;
	}

	private static void jsonString(StringBuilder b, String s) {
		b.append('"');
		for (int i = 0; i < s.length(); i++) {
			char ch = s.charAt(i);
			switch (ch) {
			case '"':
				b.append("\\\"");
				break;
			case '\\':
				b.append("\\\\");
				break;
			case '\n':
				b.append("\\n");
				break;
			case '\r':
				b.append("\\r");
				break;
			case '\t':
				b.append("\\t");
				break;
			default:
				if (ch < 0x20)
					b.append(String.format("\\u%04x", (int)ch));
				else
					b.append(ch);
			}
		}
		b.append('"');
	}

	private static void field(List<String> out, String name, long v) {
		if (v >= 0)
			out.add("\"" + name + "\": " + v);
	}

	/* p50, p99, p99.9 and max of v (sorted in place), as "<prefix>_pNN_ns" members. */
	private static void latencyQuantiles(StringBuilder b, String prefix, long[] v) {
		Arrays.sort(v);
		for (int i = 0; i < LATENCY_Q.length; i++)
			b.append(",\n    \"").append(prefix).append('_').append(LATENCY_QNAME[i])
			    .append("_ns\": ").append(JvmPauseLog.quantile(v, LATENCY_Q[i]));
	}

	/*
	 * The "latency" section, as probe_json_latency writes it. Metered: request i arrives at
	 * i * span / n, the requests' own span spread evenly, and is served in order by one
	 * server for its measured service time: end_i = max(arrival_i, end_(i-1)) + service_i,
	 * latency end_i - arrival_i. A pause inside one request delays the ones queued behind it
	 * until the queue drains. Every figure is a difference of nanoTime() readings, so none is
	 * negative and the signed sort orders them as C's unsigned one does.
	 */
	private static void latencyJson(StringBuilder b) {
		long[] simple = latencyServiceNs, metered = new long[simple.length];
		int n = simple.length;
		long done = 0;

		for (int i = 0; i < n; i++) {
			/* i * span / n, in floating point as in C: the product can overflow. */
			long arrival = (long)((double)latencySpanNs * (double)i / (double)n);
			long start = Math.max(done, arrival);

			done = start + simple[i];
			metered[i] = done - arrival;
		}
		b.append(",\n  \"latency\": {\n    \"requests\": ").append(n);
		latencyQuantiles(b, "simple", simple);
		latencyQuantiles(b, "metered", metered);
		b.append("\n  }");
	}

	/* The census object (docs/census-protocol.md, format version 1). */
	String json(String probe, String size, long iterations, String checksum, Integer met,
	            String why) {
		StringBuilder b = new StringBuilder();
		b.append("{\n  \"format\": \"gcr-census\",\n  \"version\": 1,\n  \"probe\": ");
		jsonString(b, probe);
		b.append(",\n  \"size\": \"").append(size).append("\",\n  \"iterations\": ")
		    .append(iterations).append(",\n  \"collector\": ");
		jsonString(b, collector);
		b.append(",\n  \"collector_version\": ");
		jsonString(b, version);
		b.append(",\n  \"capabilities\": [");
		String sep = "";
		for (String cap : (capabilities + (pauses != null ? " pause_log" : "")).split(" ")) {
			if (cap.isEmpty())
				continue;
			b.append(sep).append('"').append(cap).append('"');
			sep = ", ";
		}
		b.append("],\n  \"checksum\": \"").append(checksum).append("\",\n  \"census\": {");
		List<String> c = new ArrayList<>();
		field(c, "minor_collections", minor);
		field(c, "major_collections", major);
		field(c, "alloc_bytes", allocBytes);
		field(c, "heap_committed_peak_bytes", committedPeak);
		field(c, "heap_used_after_full_bytes", usedAfterFull);
		field(c, "pause_total_ns", pauseNs);
		field(c, "pause_max_ns", pauseMaxNs);
		b.append(c.isEmpty() ? "}" : "\n    " + String.join(",\n    ", c) + "\n  }");
		if (triggers != null)
			b.append(",\n  ").append(triggers);
		List<String> m = new ArrayList<>();
		field(m, "vm_hwm_bytes", memory[0]);
		field(m, "rss_anon_bytes", memory[1]);
		b.append(",\n  \"memory\": {").append(m.isEmpty() ? "}" : " " + String.join(", ", m) + " }");
		if (pauses != null)
			b.append(",\n  ").append(pauses);
		if (latencyServiceNs != null && latencyServiceNs.length > 0)
			latencyJson(b);
		if (met != null) {
			b.append(",\n  \"premise\": { \"met\": ")
			    .append(met == 1 ? "true" : met == 0 ? "false" : "null")
			    .append(", \"text\": ");
			jsonString(b, why);
			b.append(" }");
		}
		b.append("\n}\n");
		return b.toString();
	}
}
