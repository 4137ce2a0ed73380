/*
 * Probe.java — the runtime every JVM probe shares: the Java twin of probes/runtime/probe.c.
 *
 * A probe is a class with a main that calls Probe.main(args, new ThisProbe()). The runtime
 * parses the command line as the C runtime does (NN_name [ci|default|large] [--size S]
 * [--iterations N]), opens the census descriptor named by GCR_CENSUS_FD before the run (a
 * broken harness fails in milliseconds, not after the run), runs the body, runs the final
 * full collection (System.gc()), prints "checksum 0x..." on stdout and writes the census
 * object (docs/census-protocol.md) to the descriptor. It is opened for appending: when the
 * descriptor is a file rather than the harness's pipe, opening it by path must not truncate
 * what is already there.
 *
 * The census comes from the JVM's own management beans (JvmCensus), not from counting in the
 * probe: what the collector reports is what the harness stores. Java cannot write to a bare
 * descriptor number, so the census goes through /proc/self/fd/N, a second file description
 * of the same pipe: the JVM exits right after writing, and its exit closes descriptor N.
 *
 * Exit status: 0 done; 2 bad command line or environment (message on stderr). A probe that
 * finds its data corrupted throws Probe.Corrupt, which prints the message and halts with 134
 * (the C probes abort(): SIGABRT).
 *
 * Invariants, as in the C runtime: run() is deterministic and its checksum is computed from
 * values stored in objects and read back, so every collector gives the same one; the 64-bit
 * arithmetic is unsigned (>>> for >>, Long.remainderUnsigned for %) so that it matches C's
 * uint64_t bit for bit.
 */
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.FileReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

public abstract class Probe {
	static final int EXIT_OK = 0;
	static final int EXIT_USAGE = 2;
	static final String[] SIZE_NAMES = {"ci", "default", "large"};

	/* "01_nursery_churn": number and name, as the C probe is named. */
	abstract String name();

	/* The collector activity the probe exists to cause, in one sentence. */
	abstract String premise();

	/* Iterations for ci, default and large: the C probe's. */
	abstract long[] iterations();

	/* The body: `iterations` units of work; returns a checksum of its result. */
	abstract long run(long iterations);

	/*
	 * Judges the premise on the census taken after the final full collection: 1 met, 0 not
	 * met, -1 not applicable, with the reason in why. The default: no premise check (null).
	 */
	Integer premiseMet(JvmCensus c, StringBuilder why) {
		return null;
	}

	/* A probe's data came back wrong: the message names what and where. */
	static final class Corrupt extends RuntimeException {
		private static final long serialVersionUID = 1L;

		Corrupt(String message) {
			super(message);
		}
	}

	/* ---- Helpers for probe bodies, bit for bit those of probe.h ---------------------- */

	static long mix(long h, long v) {
		h ^= v + 0x9e3779b97f4a7c15L + (h << 6) + (h >>> 2);
		return h;
	}

	/* xorshift64*; state[0] must start non-zero. */
	static long rand(long[] state) {
		long x = state[0];
		x ^= x >>> 12;
		x ^= x << 25;
		x ^= x >>> 27;
		state[0] = x;
		return x * 0x2545f4914f6cdd1dL;
	}

	static String hex(long v) {
		return String.format("0x%016x", v);
	}

	/*
	 * Whether a premise about collections can be judged at all: -1 with the reason when the
	 * collector does not collect, or when the census or the probe's own readings of the counts
	 * (countsKnown false) lack them; 0 when it can.
	 */
	static int collectionsCounted(JvmCensus c, boolean countsKnown, StringBuilder why) {
		if (!c.collects) {
			why.append("the collector does not collect");
			return -1;
		}
		if (!countsKnown || c.minor < 0 || c.major < 0) {
			why.append("the census lacks minor/major collection counts");
			return -1;
		}
		return 0;
	}

	/*
	 * The start most premises share (probe_collected in C): a collector that collects must
	 * have collected during the run, more than the final full collection. Returns -1 (does not
	 * collect, or no counts), 0 (no collection during the run) or 1 with out[0] = minor + major.
	 */
	static int collected(JvmCensus c, long[] out, StringBuilder why) {
		if (collectionsCounted(c, true, why) != 0)
			return -1;
		out[0] = c.minor + c.major;
		if (out[0] <= 1) {
			why.append("no collection during the run (" + out[0]
			           + " in all, with the final full one)");
			return 0;
		}
		return 1;
	}

	/* ---- Command line ---------------------------------------------------------------- */

	private String usage() {
		long[] it = iterations();
		return "usage: " + name() + " [ci|default|large] [--size ci|default|large] [--iterations N]\n"
		    + "  sizes: ci " + it[0] + ", default " + it[1] + ", large " + it[2] + " iterations\n"
		    + "  premise: " + premise() + "\n"
		    + "  prints \"checksum 0x...\" on stdout; writes the census object to GCR_CENSUS_FD "
		    + "when it is set\n";
	}

	private int badUsage(String what, String arg) {
		System.err.print(name() + ": " + what + " '" + arg + "'\n" + usage());
		return EXIT_USAGE;
	}

	private static int sizeIndex(String s) {
		for (int i = 0; i < SIZE_NAMES.length; i++)
			if (SIZE_NAMES[i].equals(s))
				return i;
		return -1;
	}

	/* A positive decimal integer, nothing else; -1 if not. */
	private static long parsePositive(String s) {
		if (s.isEmpty() || s.length() > 19)
			return -1;
		for (int i = 0; i < s.length(); i++)
			if (s.charAt(i) < '0' || s.charAt(i) > '9')
				return -1;
		long v = Long.parseLong(s);
		return v > 0 ? v : -1;
	}

	/* ---- The run ----------------------------------------------------------------------- */

	public static void main(String[] argv, Probe p) {
		/*
		 * The ABI's heap exhaustion (gcr.h): status 3 and "heap exhausted", so the harness
		 * stores heap_exhausted, not a crash. Written before the run, because when the heap
		 * is exhausted the probe's live data may still be reachable (from p) and a message
		 * built then would throw OutOfMemoryError itself.
		 */
		byte[] exhausted = (p.name() + ": heap exhausted: java.lang.OutOfMemoryError: limit "
		                    + Runtime.getRuntime().maxMemory() + " bytes (-Xmx)\n")
		                       .getBytes(StandardCharsets.US_ASCII);
		FileOutputStream stderr = new FileOutputStream(FileDescriptor.err);
		/*
		 * halt() loads java.lang.Shutdown on its first call, which allocates: under Epsilon,
		 * whose heap never frees, that threw from the handler and the JVM exited 1.
		 */
		try {
			Class.forName("java.lang.Shutdown");
		} catch (ClassNotFoundException e) {
			throw new IllegalStateException(e);
		}
		int rc;
		try {
			rc = p.runMain(argv);
		} catch (Corrupt e) {
			System.err.println(p.name() + ": " + e.getMessage());
			System.err.flush();
			Runtime.getRuntime().halt(134);
			return;
		} catch (OutOfMemoryError e) {
			try {
				stderr.write(exhausted);
			} catch (IOException | OutOfMemoryError ignored) {
				/* The status alone still says it. */
			}
			Runtime.getRuntime().halt(3);
			return;
		}
		System.exit(rc);
	}

	private int runMain(String[] argv) {
		int size = 1;
		boolean sizeGiven = false, iterationsGiven = false;
		long iterations = 0;

		for (int i = 0; i < argv.length; i++) {
			String arg = argv[i], val = null;

			if (arg.equals("-h") || arg.equals("--help")) {
				System.out.print(usage());
				return EXIT_OK;
			}
			if (arg.equals("--size") || arg.equals("--iterations")) {
				if (i + 1 >= argv.length)
					return badUsage("missing value after", arg);
				val = argv[++i];
			} else if (arg.startsWith("--size=")) {
				val = arg.substring(7);
			} else if (arg.startsWith("--iterations=")) {
				val = arg.substring(13);
			}
			if (arg.startsWith("--iterations") && val != null) {
				if (iterationsGiven)
					return badUsage("--iterations given twice, at", val);
				iterations = parsePositive(val);
				if (iterations < 0)
					return badUsage("--iterations needs a positive integer, not", val);
				iterationsGiven = true;
				continue;
			}
			if (arg.startsWith("--size") && val != null)
				arg = val;
			else if (arg.startsWith("-"))
				return badUsage("unknown option", arg);
			int s = sizeIndex(arg);
			if (s < 0)
				return badUsage("unknown size (want ci, default or large)", arg);
			if (sizeGiven)
				return badUsage("size given twice, at", arg);
			size = s;
			sizeGiven = true;
		}
		if (!iterationsGiven)
			iterations = iterations()[size];

		OutputStream sink;
		try {
			sink = openSink();
		} catch (IllegalArgumentException e) {
			System.err.println(name() + ": " + e.getMessage());
			return EXIT_USAGE;
		}

		preload();
		JvmCensus.start();
		long checksum = run(iterations);
		JvmCensus census = JvmCensus.finish();
		StringBuilder why = new StringBuilder();
		Integer met = premiseMet(census, why);
		if (met != null && why.length() == 0)
			why.append(premise());

		System.out.println("checksum " + hex(checksum));
		System.out.flush();
		if (System.out.checkError()) {
			System.err.println(name() + ": writing the checksum to stdout failed");
			return EXIT_USAGE;
		}
		if (met != null && met == 0)
			System.err.println("premise not met: " + why);
		if (sink == null)
			return EXIT_OK;
		String json = census.json(name(), iterationsGiven ? "custom" : SIZE_NAMES[size],
		                          iterations, hex(checksum), met, why.toString());
		try (OutputStream out = sink) {
			out.write(json.getBytes(StandardCharsets.UTF_8));
		} catch (IOException e) {
			System.err.println(name() + ": GCR_CENSUS_FD=" + System.getenv("GCR_CENSUS_FD")
			                   + ": write failed: " + e.getMessage());
			return EXIT_USAGE;
		}
		return EXIT_OK;
	}

	/*
	 * Loads, links and initialises before the allocation count starts every class that the
	 * probe's classes (this one, its nested classes, Probe, JvmCensus, JvmPauseLog: all that
	 * its constant pools reach in this folder) name, the JDK's as well as its own, so that no
	 * class is loaded for the main thread while it is counted.
	 *
	 * The class loader allocates on the thread that asks: what grows with the classpath's
	 * length (a build folder at a longer path counted 528 more bytes on 02), and the first
	 * time one of these classes names a JDK class (java.lang.Math in 12's loop), a call to the
	 * application class loader's loadClass, which adds the name to that loader's map of
	 * per-class locks (a ConcurrentHashMap). Another thread that loads classes through the
	 * same loader during the count races for that map (the pause log was once a listener on
	 * the JVM's notification thread, and 11's count moved by 688 bytes between runs: whichever
	 * thread grew the table allocated it). Class.forName with this class loader makes
	 * it the class's initiating loader, so a constant-pool reference later finds the class
	 * without calling loadClass.
	 */
	private void preload() {
		ClassLoader loader = getClass().getClassLoader();
		ArrayDeque<Class<?>> todo = new ArrayDeque<>();
		HashSet<String> seen = new HashSet<>();
		todo.add(getClass());
		seen.add(getClass().getName());
		try {
			while (!todo.isEmpty()) {
				Class<?> k = todo.remove();
				for (String name : classNames(k)) {
					if (!seen.add(name))
						continue;
					Class<?> c = Class.forName(name, true, loader);
					if (c.getClassLoader() == loader && !c.isArray())
						todo.add(c);
				}
			}
		} catch (ClassNotFoundException | IOException e) {
			throw new IllegalStateException("a probe class could not be loaded: " + e.getMessage(),
			                                e);
		}
	}

	/*
	 * The classes a class file names (its CONSTANT_Class entries, JVMS 4.4.1) as
	 * Class.forName takes them: java.lang.Math, [J, [LP12LargeLiveSet$Node;.
	 */
	private static List<String> classNames(Class<?> k) throws IOException {
		String file = k.getName().replace('.', '/') + ".class";
		List<String> names = new ArrayList<>();
		try (InputStream raw = k.getClassLoader().getResourceAsStream(file)) {
			if (raw == null)
				throw new IOException(file + " not found beside the classes");
			DataInputStream in = new DataInputStream(raw);
			if (in.readInt() != 0xCAFEBABE)
				throw new IOException(file + " is not a class file");
			in.readInt();
			int n = in.readUnsignedShort();
			String[] utf8 = new String[n];
			int[] classAt = new int[n];
			int classes = 0;
			for (int i = 1; i < n; i++) {
				int tag = in.readUnsignedByte();
				switch (tag) {
				case 1:
					utf8[i] = in.readUTF();
					break;
				case 7:
					classAt[classes++] = in.readUnsignedShort();
					break;
				case 8: case 16: case 19: case 20:
					in.skipBytes(2);
					break;
				case 15:
					in.skipBytes(3);
					break;
				case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18:
					in.skipBytes(4);
					break;
				case 5: case 6:
					in.skipBytes(8);
					i++;
					break;
				default:
					throw new IOException(file + ": constant pool tag " + tag + " at " + i);
				}
			}
			for (int j = 0; j < classes; j++)
				names.add(utf8[classAt[j]].replace('/', '.'));
		}
		return names;
	}

	/* The census descriptor, or null when GCR_CENSUS_FD is unset. */
	private static OutputStream openSink() {
		String s = System.getenv("GCR_CENSUS_FD");
		if (s == null)
			return null;
		long fd = s.equals("0") ? 0 : parsePositive(s);
		if (fd < 0 || fd > Integer.MAX_VALUE)
			throw new IllegalArgumentException("GCR_CENSUS_FD='" + s
			                                   + "' is not a descriptor number");
		try {
			return new FileOutputStream("/proc/self/fd/" + fd, true);
		} catch (IOException e) {
			throw new IllegalArgumentException("GCR_CENSUS_FD=" + s
			                                   + ": descriptor is not open for writing ("
			                                   + e.getMessage() + ")");
		}
	}

	/* VmHWM and RssAnon from /proc/self/status, in bytes; -1 where the kernel gave none. */
	static long[] readMemory() {
		long[] m = {-1, -1};
		try (BufferedReader r = new BufferedReader(new FileReader("/proc/self/status"))) {
			for (String line; (line = r.readLine()) != null;) {
				int k = line.startsWith("VmHWM:") ? 0 : line.startsWith("RssAnon:") ? 1 : -1;
				if (k < 0)
					continue;
				String[] f = line.substring(line.indexOf(':') + 1).trim().split("\\s+");
				if (f.length == 2 && f[1].equals("kB"))
					m[k] = Long.parseLong(f[0]) * 1024;
			}
		} catch (IOException | NumberFormatException e) {
			/* Absent figures stay absent. */
		}
		return m;
	}
}
