/*
 * P01NurseryChurn — probes/01_nursery_churn.c in Java: many small objects that die young,
 * around a tiny long-lived set. Same shape, sizes and checksum as the C probe.
 *
 * Each iteration builds a list of LIST_LEN cells (next; value, index) and a tuple over it
 * (list, first, a long-lived cell; iteration), reads them back into the checksum and drops
 * them. A table of KEEP long-lived cells lives for the whole run; every KEEP_EVERY iterations
 * one entry is replaced by the current list's head (an old-to-young store, then a survivor).
 *
 * Premise: a collector that collects must collect during the run (minor + major > 1; the
 * final System.gc() is one). The JVM's beans do not count freed bytes, so, as on a C
 * collector without freed_bytes, that half is not judged.
 *
 * Sizes (iterations): ci 500 000, default 8 000 000, large 80 000 000. A cell is 32 bytes on
 * a 64-bit JVM with compressed oops and a tuple 32: ~192 bytes per iteration (96 MB at ci).
 *
 * Checksum: per iteration, the sum of value * (index + 1) over the list, the first cell's
 * index, the long-lived cell's value and the iteration; then the long-lived table.
 */
public final class P01NurseryChurn extends Probe {
	static final int LIST_LEN = 5;
	static final int KEEP = 16;
	static final int KEEP_EVERY = 1024;

	static final class Cell {
		Cell next;
		long value, index;
	}

	static final class Tuple {
		Cell list, first, keep;
		long iteration;
	}

	String name() {
		return "01_nursery_churn";
	}

	String premise() {
		return "most objects die young: a collector that collects must collect during the "
		    + "run and free memory";
	}

	long[] iterations() {
		return new long[] {500000, 8000000, 80000000};
	}

	long run(long iterations) {
		Cell[] keep = new Cell[KEEP];
		long[] rng = {0x0123456789abcdefL};
		long h = 1;

		for (int i = 0; i < KEEP; i++) {
			Cell cell = new Cell();
			cell.value = i * 1000003L;
			cell.index = i;
			keep[i] = cell;
		}
		for (long it = 0; it < iterations; it++) {
			long sum = 0;
			Cell list = null;

			for (int j = 0; j < LIST_LEN; j++) {
				Cell cell = new Cell();
				cell.value = rand(rng) >>> 8;
				cell.index = j;
				cell.next = list;
				list = cell;
			}
			Tuple tuple = new Tuple();
			tuple.list = list;
			tuple.first = list;
			tuple.keep = keep[(int)(it % KEEP)];
			tuple.iteration = it;

			for (Cell p = tuple.list; p != null; p = p.next)
				sum += p.value * (p.index + 1);
			h = mix(h, sum);
			h = mix(h, tuple.first.index);
			h = mix(h, tuple.keep.value);
			h = mix(h, tuple.iteration);
			if (it % KEEP_EVERY == KEEP_EVERY - 1)
				keep[(int)((it / KEEP_EVERY) % KEEP)] = list;
		}
		for (int i = 0; i < KEEP; i++) {
			h = mix(h, keep[i].value);
			h = mix(h, keep[i].index);
		}
		return h;
	}

	Integer premiseMet(JvmCensus c, StringBuilder why) {
		long[] n = new long[1];
		int state = collected(c, n, why);
		if (state != 1)
			return state;
		why.append(n[0] + " collections (" + c.minor + " minor, " + c.major
		           + " major); freed_bytes not reported");
		return 1;
	}

	public static void main(String[] args) {
		Probe.main(args, new P01NurseryChurn());
	}
}
