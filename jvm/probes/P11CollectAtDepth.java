/*
 * P11CollectAtDepth — probes/11_collect_at_depth.c in Java: collections while a deep stack
 * of frames holds live references. Same shape, sizes and checksum as the C probe.
 *
 * Each iteration is one descent: a recursion DEPTH_MAX, 3/4, 1/2 or 1/4 of DEPTH_MAX frames
 * deep (rotating), where every frame holds its own node (parent frame's node, payload;
 * depth, tag) and payload (a long[5]) in locals, plus FRAME_GARBAGE short-lived objects. At
 * the deepest frame a burst of BURST_LISTS lists of BURST_LIST_LEN cells (next; five words)
 * is built and dropped, so that collections happen while the whole stack is live; then the
 * chain of nodes is walked from the bottom up, and on the way back up each frame verifies its
 * own objects. On the JVM the roots are the interpreter's and compiled frames' own slots: a
 * moving collector that failed to update one would throw Corrupt (or crash the VM).
 *
 * Premise: a collector that collects must scan the stack while it is deep: the count of
 * stop-the-world events is read at the frame half way down and again after the deepest
 * point's burst, and the events in between are counted. On Serial, Parallel and G1 an event
 * is a collection (minor + major, as in C); on ZGC and Shenandoah, whose cycles run
 * concurrently with the probe, it is a pause (each cycle's pauses scan the stacks): counting
 * whole cycles there made the premise fail one run in three, a cycle seldom ending inside
 * the window.
 *
 * Sizes (descents): ci 50, default 1 000, large 10 000; ~24 000 objects per descent.
 *
 * Checksum: each burst list's sum, the bottom-up chain walk, and each frame's node and
 * payload values as it returns.
 */
public final class P11CollectAtDepth extends Probe {
	static final int DEPTH_MAX = 2000;
	static final int FRAME_GARBAGE = 2;
	static final int BURST_LISTS = 300;
	static final int BURST_LIST_LEN = 64;
	static final int PAYLOAD_WORDS = 5;

	static final class Node {
		Node parent;
		long[] payload;
		long depth, tag;
	}

	static final class Garbage {
		Node node;
		long a, b;
	}

	/* One object, as in C: next and five words. */
	static final class Cell {
		Cell next;
		long w0, w1, w2, w3, w4;
	}

	private long collectionsDeep, descentsCollected, deepestCollected, descents;
	private boolean countsKnown = true;

	String name() {
		return "11_collect_at_depth";
	}

	String premise() {
		return "collections happen while a deep stack of frames holds live roots";
	}

	long[] iterations() {
		return new long[] {50, 1000, 10000};
	}

	static long tag(long descent, int d) {
		return ((descent << 32) | d) * 0xff51afd7ed558ccdL + 0x5bd1e995L;
	}

	static long payloadWord(long tag, int k) {
		return tag ^ (0xc4ceb9fe1a85ec53L * (k + 1));
	}

	static int depthOf(long descent) {
		return DEPTH_MAX - (int)(descent % 4) * (DEPTH_MAX / 4);
	}

	static Corrupt fail(long descent, int d, String what, long found, long expected) {
		return new Corrupt("descent " + descent + ", frame " + d + ": " + what + " is "
		                   + hex(found) + ", expected " + hex(expected)
		                   + " (a root was lost or not updated)");
	}

	static long checkNode(long h, Node node, long descent, int d) {
		long tag = tag(descent, d);
		if (node == null)
			throw fail(descent, d, "node pointer", 0, tag);
		if (node.depth != d)
			throw fail(descent, d, "node depth", node.depth, d);
		if (node.tag != tag)
			throw fail(descent, d, "node tag", node.tag, tag);
		long[] payload = node.payload;
		if (payload == null)
			throw fail(descent, d, "payload pointer", 0, tag);
		for (int k = 0; k < PAYLOAD_WORDS; k++) {
			if (payload[k] != payloadWord(tag, k))
				throw fail(descent, d, "payload word", payload[k], payloadWord(tag, k));
			h = mix(h, payload[k]);
		}
		return mix(h, d);
	}

	static long bottom(Node bottom, long descent, int depth, long h) {
		long[] rng = {descent * 2 + 1};

		for (int l = 0; l < BURST_LISTS; l++) {
			long sum = 0;
			Cell list = null;
			for (int i = 0; i < BURST_LIST_LEN; i++) {
				Cell cell = new Cell();
				cell.w0 = rand(rng) >>> 16;
				cell.w1 = rand(rng) >>> 16;
				cell.w2 = rand(rng) >>> 16;
				cell.w3 = rand(rng) >>> 16;
				cell.w4 = rand(rng) >>> 16;
				cell.next = list;
				list = cell;
			}
			for (Cell p = list; p != null; p = p.next)
				sum += p.w0 ^ p.w4;
			h = mix(h, sum);
		}
		int d = depth - 1;
		for (Node n = bottom; n != null; n = n.parent, d--)
			h = checkNode(h, n, descent, d);
		if (d != -1)
			throw fail(descent, d, "chain length (frames not walked)", d + 1, 0);
		return h;
	}

	long frame(Node parent, long descent, int d, int depth, long h) {
		long tag = tag(descent, d);
		Node node = new Node();
		node.depth = d;
		node.tag = tag;
		node.parent = parent;
		long[] payload = new long[PAYLOAD_WORDS];
		for (int k = 0; k < PAYLOAD_WORDS; k++)
			payload[k] = payloadWord(tag, k);
		node.payload = payload;
		for (int g = 0; g < FRAME_GARBAGE; g++) {
			Garbage garbage = new Garbage();
			garbage.node = node;
			garbage.a = tag + g;
			garbage.b = d;
		}

		if (d == depth / 2 && d + 1 < depth) {
			long before = JvmCensus.stackScansSoFar();
			h = frame(node, descent, d + 1, depth, h);
			long after = JvmCensus.stackScansSoFar();
			if (before < 0 || after < 0)
				countsKnown = false;
			else if (after > before) {
				collectionsDeep += after - before;
				descentsCollected++;
				deepestCollected = Math.max(deepestCollected, depth);
			}
		} else if (d + 1 < depth) {
			h = frame(node, descent, d + 1, depth, h);
		} else {
			h = bottom(node, descent, depth, h);
		}
		if (payload != node.payload)
			throw fail(descent, d, "payload root differs from node's payload slot", 1, 0);
		return checkNode(h, node, descent, d);
	}

	long run(long iterations) {
		long h = 11;
		for (long descent = 0; descent < iterations; descent++)
			h = frame(null, descent, 0, depthOf(descent), h);
		descents = iterations;
		return h;
	}

	Integer premiseMet(JvmCensus c, StringBuilder why) {
		if (collectionsCounted(c, countsKnown, why) != 0)
			return -1;
		if (collectionsDeep == 0) {
			why.append("no collection happened with the stack deep (" + descents
			           + " descents of up to " + DEPTH_MAX + " frames)");
			return 0;
		}
		why.append(collectionsDeep + " collections (or pauses) with at least half of a descent's frames "
		           + "live, in " + descentsCollected + " of " + descents + " descents; deepest "
		           + deepestCollected + " frames");
		return 1;
	}

	public static void main(String[] args) {
		Probe.main(args, new P11CollectAtDepth());
	}
}
