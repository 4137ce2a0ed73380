/*
 * JvmTriggers.java — the census "triggers" of a JVM build (docs/census-protocol.md): every
 * collection the census counts, by what started it, from the cause the JVM's per-collection
 * notification carries (GarbageCollectionNotificationInfo.getGcCause(), the text of HotSpot's
 * GCCause), mapped to the protocol's names by CAUSES below.
 *
 * The beans counted are those JvmCensus sums into minor_collections and major_collections
 * (JvmCensus.MINOR and MAJOR: Copy ... G1 Old Generation, ZGC Cycles, Shenandoah Cycles), so
 * the triggers add up to those counts, as the protocol says. Where the census leaves the counts
 * out (a bean it does not know) or a counted bean sends no notifications, there is no section:
 * a partial one would not add up. Epsilon counts no bean: every trigger is a true 0.
 *
 * Every name the map can produce is sent, zeros too (a zero is true: every collection was
 * seen), so each run of a build reports the same names and ab pairs them. A cause the map does
 * not know (a later JDK's) counts as "other" and is named on stderr once, at the end.
 *
 * The listener runs on the JVM's notification thread, as JvmPauseLog's does (which says why
 * the main thread's alloc_bytes stays the same: Probe.preload and registering before the count
 * starts). Registering turns the beans' notifications on, also where no pause log listens
 * (ZGC, Shenandoah, a G1 run whose marker ran): a notification in flight during the final
 * System.gc() would keep its GcInfo alive through it, so settle() waits for those counted so
 * far first, as JvmPauseLog.settle does.
 */
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import com.sun.management.GarbageCollectionNotificationInfo;

final class JvmTriggers implements NotificationListener {
	/* The protocol's names (gcr.h, GCR_TRIGGERS), in its order: the section's members. */
	static final String[] NAMES = {"allocation", "large_object", "heap_limit", "explicit",
	                               "timer",      "heuristic",    "metadata",   "gc_locker",
	                               "zeal",       "other"};
	private static final int OTHER = NAMES.length - 1;
	/*
	 * JDK 17's GCCause texts (gcCause.cpp) and the trigger each is: what the JVM says started
	 * the collection, read as the protocol defines the names.
	 */
	private static final String[][] CAUSES = {
	    /* The allocation budget ran out: eden, a young generation, an old one's room. */
	    {"Allocation Failure", "allocation"},
	    {"G1 Evacuation Pause", "allocation"},
	    {"Tenured Generation Full", "allocation"},
	    {"Old Generation Too Full To Scavenge", "allocation"},
	    {"G1 Humongous Allocation", "large_object"},
	    /* The heap could not meet a request even so: a last collection before giving up. */
	    {"G1 Compaction Pause", "heap_limit"},
	    {"Allocation Stall", "heap_limit"},
	    {"Allocation Failure During Evacuation", "heap_limit"},
	    {"Upgrade To Full GC", "heap_limit"},
	    /* Asked for: the program, a tool, a diagnostic command. */
	    {"System.gc()", "explicit"},
	    {"Diagnostic Command", "explicit"},
	    {"JvmtiEnv ForceGarbageCollection", "explicit"},
	    {"Heap Inspection Initiated GC", "explicit"},
	    {"Heap Dump Initiated GC", "explicit"},
	    {"Allocation Profiler", "explicit"},
	    {"Full GC for -Xshare:dump", "explicit"},
	    {"WhiteBox Initiated Young GC", "explicit"},
	    {"WhiteBox Initiated Concurrent Mark", "explicit"},
	    {"WhiteBox Initiated Full GC", "explicit"},
	    {"WhiteBox Initiated Run to Breakpoint", "explicit"},
	    /* A clock. */
	    {"G1 Periodic Collection", "timer"},
	    {"Timer", "timer"},
	    /* The collector's own forecast, ahead of need. */
	    {"Ergonomics", "heuristic"},
	    {"G1 Preventive Collection", "heuristic"},
	    {"Old Generation Expanded On Last Scavenge", "heuristic"},
	    {"Warmup", "heuristic"},
	    {"Allocation Rate", "heuristic"},
	    {"Proactive", "heuristic"},
	    {"High Usage", "heuristic"},
	    {"Concurrent GC", "heuristic"},
	    /* Class metadata and code, not the heap. */
	    {"Metadata GC Threshold", "metadata"},
	    {"Metadata GC Clear Soft References", "metadata"},
	    {"Last ditch collection", "metadata"},
	    {"CodeCache GC Threshold", "metadata"},
	    {"CodeCache GC Aggressive", "metadata"},
	    {"GCLocker Initiated GC", "gc_locker"},
	    /* Debug builds' stress options: the JVM's GCR_ZEAL. */
	    {"FullGCAlot", "zeal"},
	    {"ScavengeAlot", "zeal"},
	};
	private static final long MS = 1000000L;
	private static final long WAIT_NS = 1000000000L;

	private final List<GarbageCollectorMXBean> beans;
	private final long[] base;
	/* Guarded by this: collections seen per trigger, in all, and causes CAUSES lacks. */
	private final long[] counts = new long[NAMES.length];
	private long seen;
	private final TreeSet<String> unmapped = new TreeSet<>();

	private JvmTriggers(List<GarbageCollectorMXBean> beans) {
		this.beans = beans;
		this.base = new long[beans.size()];
		for (int i = 0; i < beans.size(); i++)
			((NotificationEmitter)beans.get(i)).addNotificationListener(this, null, i);
		/* After registering: a collection counted here is before the run and is not kept. */
		for (int i = 0; i < beans.size(); i++)
			base[i] = beans.get(i).getCollectionCount();
	}

	/*
	 * Starts counting, just before the run, the collections of the beans the census counts
	 * (`counted`); null where a bean is neither counted nor in `skipped` (the census leaves
	 * its counts out then) or a counted bean sends no notifications.
	 */
	static JvmTriggers start(String[] counted, String[] skipped) {
		List<GarbageCollectorMXBean> use = new ArrayList<>();
		for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
			if (contains(counted, b.getName())) {
				if (!(b instanceof NotificationEmitter))
					return null;
				use.add(b);
			} else if (!contains(skipped, b.getName())) {
				return null;
			}
		}
		return new JvmTriggers(use);
	}

	private static boolean contains(String[] list, String s) {
		for (String x : list)
			if (x.equals(s))
				return true;
		return false;
	}

	/* The trigger a cause is, by CAUSES; OTHER for one it does not list. */
	private static int triggerOf(String cause) {
		for (String[] c : CAUSES) {
			if (!c[0].equals(cause))
				continue;
			for (int i = 0; i < NAMES.length; i++)
				if (NAMES[i].equals(c[1]))
					return i;
		}
		return OTHER;
	}

	@Override
	public void handleNotification(Notification note, Object handback) {
		if (!note.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION))
			return;
		int i = (Integer)handback;
		GarbageCollectionNotificationInfo info =
		    GarbageCollectionNotificationInfo.from((CompositeData)note.getUserData());
		String cause = info.getGcCause();
		synchronized (this) {
			if (info.getGcInfo().getId() <= base[i])
				return;
			int t = triggerOf(cause);
			if (t == OTHER && !cause.equals("No GC"))
				unmapped.add(cause);
			counts[t]++;
			seen++;
			notifyAll();
		}
	}

	/* The counted beans' collections since the start. */
	private long counted() {
		long n = 0;
		for (int i = 0; i < beans.size(); i++)
			n += beans.get(i).getCollectionCount() - base[i];
		return n;
	}

	/* Waits up to WAIT_NS for `want` notifications in all; returns how many came. */
	private synchronized long await(long want) {
		long deadline = System.nanoTime() + WAIT_NS;
		for (long left = WAIT_NS; seen < want && left > 0; left = deadline - System.nanoTime()) {
			try {
				wait(Math.max(1, left / MS));
			} catch (InterruptedException ie) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		return seen;
	}

	/* Before the final System.gc(): the notifications of the collections counted so far. */
	void settle() {
		await(counted());
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

	/*
	 * After the final System.gc(): the "triggers" member (its text, from the key on), or null
	 * with a warning on stderr when a notification did not come (the counts would not add up).
	 */
	String finish() {
		long want = counted(), got = await(want);
		long[] c;
		TreeSet<String> odd;
		synchronized (this) {
			c = counts.clone();
			odd = new TreeSet<>(unmapped);
		}
		stop();
		if (got != want) {
			System.err.println("gcratchet JVM census: no triggers: " + got + " collection "
			                   + "notifications arrived within 1 s, the beans counted " + want);
			return null;
		}
		for (String cause : odd)
			System.err.println("gcratchet JVM census: collection cause '" + cause
			                   + "' maps to no trigger: counted as other");
		StringBuilder b = new StringBuilder("\"triggers\": {");
		for (int i = 0; i < NAMES.length; i++)
			b.append(i > 0 ? ", " : "").append('"').append(NAMES[i]).append("\": ").append(c[i]);
		return b.append('}').toString();
	}
}
