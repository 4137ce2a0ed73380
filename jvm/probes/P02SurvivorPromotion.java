/*
 * P02SurvivorPromotion — probes/02_survivor_promotion.c in Java: a FIFO queue of records that
 * each survive WINDOW iterations (several young generations' worth of allocation) before
 * dying. Same shape, sizes and checksum as the C probe.
 *
 * Each iteration allocates a record (next, payload; sequence, value, check), its payload (a
 * long[4]) and two short-lived temporaries (a reference and three words each), enqueues the
 * record at the tail (a store into the previous record, old by now: a barrier store) and,
 * once WINDOW records are queued, dequeues the oldest and verifies it.
 *
 * Premise: on a generational JVM collector, records must be promoted: the old generation's
 * pool must hold something before the final full collection (the beans count no promoted
 * objects, so the old pool's occupancy stands in for them). On ZGC and Shenandoah (not
 * generational in JDK 17) the collector must collect during the run (minor + major > 1).
 *
 * Sizes (iterations): ci 300 000, default 6 000 000, large 60 000 000. A record is 40 bytes,
 * its payload 48 and each temporary 32: ~152 bytes per iteration; the live queue ~5.8 MB.
 *
 * Checksum: every dequeued record's sequence, value and payload words in queue order, then
 * the records still queued, head to tail. A record that comes back wrong throws Corrupt.
 */
public final class P02SurvivorPromotion extends Probe {
	static final int WINDOW = 65536;
	static final int PAYLOAD_WORDS = 4;
	static final long CHECK_MUL = 0x9e3779b97f4a7c15L;

	static final class Rec {
		Rec next;
		long[] payload;
		long seq, value, check;
	}

	static final class Temp {
		Object ref;
		long a, b, c;
	}

	/* What the premise reads: the old generation's used bytes before the final collection. */
	private long oldUsed = -1;

	String name() {
		return "02_survivor_promotion";
	}

	String premise() {
		return "queued records survive several nursery-fulls: a generational collector must "
		    + "promote them";
	}

	long[] iterations() {
		return new long[] {300000, 6000000, 60000000};
	}

	static long payloadWord(long value, long seq, int k) {
		return value * (k + 3) + seq * (0x100000001b3L + k);
	}

	static long take(long h, Rec rec, long expectSeq) {
		long[] payload = rec.payload;
		boolean checkOk = rec.check == (rec.value ^ (rec.seq * CHECK_MUL));

		if (rec.seq != expectSeq || !checkOk || payload == null)
			throw new Corrupt("record " + expectSeq + " corrupted: sequence " + rec.seq
			                  + ", check " + (checkOk ? "ok" : "wrong") + ", payload "
			                  + (payload != null ? "present" : "missing"));
		h = mix(h, rec.seq);
		h = mix(h, rec.value);
		for (int k = 0; k < PAYLOAD_WORDS; k++) {
			long w = payload[k];
			if (w != payloadWord(rec.value, rec.seq, k))
				throw new Corrupt("record " + rec.seq + " payload word " + k + " is " + hex(w)
				                  + ", expected " + hex(payloadWord(rec.value, rec.seq, k)));
			h = mix(h, w);
		}
		return h;
	}

	long run(long iterations) {
		Rec head = null, tail = null;
		long[] rng = {0x2545f4914f6cdd1dL};
		long h = 2, queued = 0, nextOut = 0;

		for (long seq = 0; seq < iterations; seq++) {
			long value = rand(rng);
			Rec rec = new Rec();
			rec.seq = seq;
			rec.value = value;
			rec.check = value ^ (seq * CHECK_MUL);
			long[] payload = new long[PAYLOAD_WORDS];
			for (int k = 0; k < PAYLOAD_WORDS; k++)
				payload[k] = payloadWord(value, seq, k);
			rec.payload = payload;

			/* Short-lived work on the side: a message about the record, and its reply. */
			Temp temp = new Temp();
			temp.ref = rec;
			temp.a = value >>> 3;
			temp.b = seq;
			temp.c = queued;
			temp = new Temp();
			temp.ref = rec.payload;
			temp.a = value << 3;
			temp.b = ~seq;
			temp.c = queued;
			h = mix(h, ((long[])temp.ref)[0]);

			if (tail != null)
				tail.next = rec;
			else
				head = rec;
			tail = rec;
			queued++;
			if (queued > WINDOW) {
				h = take(h, head, nextOut++);
				head = head.next;
				queued--;
			}
		}
		for (Rec p = head; p != null; p = p.next)
			h = take(h, p, nextOut++);
		if (nextOut != iterations)
			throw new Corrupt("the queue held " + nextOut + " records, expected " + iterations);
		oldUsed = JvmCensus.oldGenUsed();
		return h;
	}

	Integer premiseMet(JvmCensus c, StringBuilder why) {
		if (c.capabilities.contains("generational")) {
			if (oldUsed < 0) {
				why.append("generational collector, but no old generation pool to read");
				return -1;
			}
			if (oldUsed == 0) {
				why.append("generational collector promoted nothing (old generation empty "
				           + "before the final collection)");
				return 0;
			}
			why.append("promoted: the old generation held " + oldUsed
			           + " bytes before the final collection");
			return 1;
		}
		long[] n = new long[1];
		int state = collected(c, n, why);
		if (state != 1)
			return state;
		why.append("not generational, judged on collections instead of promotion: " + n[0]
		           + " collections traced the queue");
		return 1;
	}

	public static void main(String[] args) {
		Probe.main(args, new P02SurvivorPromotion());
	}
}
