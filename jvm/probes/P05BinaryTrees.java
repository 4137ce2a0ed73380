/*
 * P05BinaryTrees — probes/05_binary_trees.c in Java: the GCBench shape (Ellis, Kovac and
 * Boehm). Same shape, sizes and checksum as the C probe.
 *
 * The iteration count is the maximum tree depth N:
 *   1. a stretch tree of depth N + 1 is built bottom-up, walked and dropped;
 *   2. a long-lived tree of depth N is built top-down and a long-lived long[2^(N-1)] filled;
 *   3. for d = MIN_DEPTH, MIN_DEPTH + 2, ... <= N: 2^(N-d) pairs of trees of depth d, one
 *      top-down and one bottom-up, each walked and dropped at once;
 *   4. the long-lived tree and array are verified.
 * A node is left, right and one word (its height and build order packed): 24 bytes on a
 * 64-bit JVM with compressed oops, as the C node's 2 pointers + 8 bytes.
 *
 * Premise: a collector that collects must collect during the run (minor + major > 1).
 *
 * Sizes (N): ci 16, default 19, large 22 (2.2 M, 19.8 M and 192 M nodes).
 *
 * Checksum: for every tree walked (left before right), each node's build order; the node
 * counts; then the long-lived tree and array. A wrong height, node count or array word
 * throws Corrupt.
 */
public final class P05BinaryTrees extends Probe {
	static final int MIN_DEPTH = 4;
	static final int MAX_N = 26;
	static final long ARRAY_MUL = 0x9fb21c651e98df25L;

	static final class Node {
		Node left, right;
		long word;
	}

	/* The next build order within the current tree. */
	private long order;

	String name() {
		return "05_binary_trees";
	}

	String premise() {
		return "short-lived trees come and go around a long-lived tree: a collector that "
		    + "collects must collect during the run";
	}

	long[] iterations() {
		return new long[] {16, 19, 22};
	}

	static Corrupt fail(String tree, String what, long found, long expected) {
		return new Corrupt(tree + ": " + what + " is " + found + ", expected " + expected);
	}

	private Node node(int height) {
		Node n = new Node();
		n.word = ((long)height << 32) | order++;
		return n;
	}

	/* Fills node (a leaf) with children down to height 0, top-down. */
	private void populate(Node node, int height) {
		if (height == 0)
			return;
		node.left = node(height - 1);
		node.right = node(height - 1);
		populate(node.left, height - 1);
		populate(node.right, height - 1);
	}

	/* A tree of the given height, children first. */
	private Node bottomUp(int height) {
		if (height == 0)
			return node(0);
		Node left = bottomUp(height - 1);
		Node right = bottomUp(height - 1);
		Node n = node(height);
		n.left = left;
		n.right = right;
		return n;
	}

	/* Walks a tree, checking heights; h[0] is the running checksum. Returns the node count. */
	static long walk(String tree, Node n, int height, long[] h) {
		if (n == null)
			throw fail(tree, "a missing node at height", height, height);
		if (n.word >>> 32 != height)
			throw fail(tree, "a node's height", n.word >>> 32, height);
		h[0] = mix(h[0], n.word & 0xffffffffL);
		if (height == 0) {
			if (n.left != null || n.right != null)
				throw fail(tree, "a leaf's child count",
				           (n.left != null ? 1 : 0) + (n.right != null ? 1 : 0), 0);
			return 1;
		}
		return 1 + walk(tree, n.left, height - 1, h) + walk(tree, n.right, height - 1, h);
	}

	static long check(String tree, Node root, int height, long h) {
		long[] hh = {h};
		long count = walk(tree, root, height, hh);
		long expected = (2L << height) - 1;
		if (count != expected)
			throw fail(tree, "the node count", count, expected);
		return mix(hh[0], count);
	}

	static long arrayWord(long i) {
		return ((i + 1) * ARRAY_MUL) >>> 11;
	}

	long run(long iterations) {
		long h = 5;

		if (iterations > MAX_N)
			throw new Corrupt("depth " + iterations + " is too deep (at most " + MAX_N + ")");
		int n = (int)iterations;
		int arrayWords = 1 << (n - 1);

		order = 0;
		Node tree = bottomUp(n + 1);
		h = check("stretch tree", tree, n + 1, h);
		tree = null;

		order = 0;
		Node longTree = node(n);
		populate(longTree, n);
		long[] array = new long[arrayWords];
		for (int i = 0; i < arrayWords; i++)
			array[i] = arrayWord(i);

		for (int d = MIN_DEPTH; d <= n; d += 2) {
			long pairs = 1L << (n - d);
			for (long p = 0; p < pairs; p++) {
				order = 0;
				tree = node(d);
				populate(tree, d);
				h = check("top-down tree", tree, d, h);
				order = 0;
				tree = bottomUp(d);
				h = check("bottom-up tree", tree, d, h);
				tree = null;
			}
			h = mix(h, d);
		}

		h = check("long-lived tree", longTree, n, h);
		for (int i = 0; i < arrayWords; i++) {
			if (array[i] != arrayWord(i))
				throw fail("long-lived array", "a word", array[i], arrayWord(i));
			h = mix(h, array[i]);
		}
		return h;
	}

	Integer premiseMet(JvmCensus c, StringBuilder why) {
		long[] n = new long[1];
		int state = collected(c, n, why);
		if (state != 1)
			return state;
		why.append(n[0] + " collections (" + c.minor + " minor, " + c.major
		           + " major) while short-lived trees came and went");
		return 1;
	}

	public static void main(String[] args) {
		Probe.main(args, new P05BinaryTrees());
	}
}
