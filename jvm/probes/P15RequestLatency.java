/*
 * P15RequestLatency — probes/15_request_latency.c in Java: a request loop over a long-lived
 * session cache, timing every request. Same shape, sizes and checksum as the C probe.
 *
 * The server holds SESSIONS sessions (id, hits, sum, and a ring of HISTORY recent entries)
 * in a directory of chunks. Each request picks a session, builds a parsed request (FIELDS
 * references to fields, each a long[FIELD_WORDS]; session id, sequence), reads the fields
 * back, updates the session, keeps one request in KEEP_EVERY as a history entry in the
 * session's ring (the entry it replaces dies: a middle-aged object that a generational
 * collector promotes), and answers with a reply. Everything else the request allocated is
 * garbage when it returns.
 *
 * Every request's service time is taken with System.nanoTime() around it and stored in a
 * long[] allocated before the sessions are built (8 bytes a request, counted in alloc_bytes);
 * the runtime (JvmCensus.latencyRecord) turns it into the census's "latency" section as the
 * C runtime does. Nothing branches on a clock value.
 *
 * Premise: collections happened while requests were in flight: the collection count is read
 * before and after the loop (the sessions are built before it), and a collector that
 * collects must have collected at least once between the two; not applicable on Epsilon.
 * jvm/build.sh runs this probe in a heap that holds its live set but not its loop (16, 64
 * and 256 MiB), since in the other probes' heaps ZGC and Shenandoah seldom completed a cycle
 * inside the loop.
 *
 * Sizes (requests): ci 50 000, default 500 000, large 2 000 000. A request allocates a
 * 48-byte request, four 48-byte fields and a 32-byte reply, and one request in four a
 * 40-byte entry: 282 bytes a request with compressed oops, 290 with its timing; alloc_bytes
 * 16.0 MB at ci, 146.5 MB at default, 581.5 MB at large (17.5 MB at ci on ZGC). The
 * sessions and their rings are 1.4 MB, and ~6.7 MB live once the rings fill.
 *
 * Checksum: every reply (a sum of the request's fields read back and the session's hit
 * count), then every session's id, hits, sum and history ring. A field or session that reads
 * back wrong throws Corrupt.
 */
public final class P15RequestLatency extends Probe {
	static final int SESSIONS = 16384;
	static final int CHUNK_SLOTS = 256;
	static final int HISTORY = 8;
	static final int FIELDS = 4;
	static final int FIELD_WORDS = 4;
	static final int KEEP_EVERY = 4;

	static final class Entry {
		long seq, value, sid;
	}

	static final class Session {
		Entry[] ring;
		long id, hits, sum;
	}

	/* One object, as in C: FIELDS references to the fields; session id, sequence. */
	static final class Request {
		long[] f0, f1, f2, f3;
		long sid, seq;

		long[] field(int f) {
			switch (f) {
			case 0:
				return f0;
			case 1:
				return f1;
			case 2:
				return f2;
			default:
				return f3;
			}
		}

		void setField(int f, long[] words) {
			switch (f) {
			case 0:
				f0 = words;
				break;
			case 1:
				f1 = words;
				break;
			case 2:
				f2 = words;
				break;
			default:
				f3 = words;
			}
		}
	}

	static final class Reply {
		long value, hits;
	}

	/* Collections before and after the loop, for the premise. */
	private long collectionsBefore, collectionsAfter;
	private boolean countsKnown = true;

	String name() {
		return "15_request_latency";
	}

	String premise() {
		return "a request loop over a session cache: a collector that collects must collect "
		    + "while requests are in flight";
	}

	long[] iterations() {
		return new long[] {50000, 500000, 2000000};
	}

	static Corrupt fail(long seq, String what, long found, long expected) {
		return new Corrupt("request " + seq + ": " + what + " is " + hex(found) + ", expected "
		                   + hex(expected));
	}

	static long fieldWord(long seq, int f, int k) {
		return (seq * FIELDS + f) * 0x9e3779b97f4a7c15L + k;
	}

	static Session session(Session[][] dir, long sid) {
		return dir[(int)(sid / CHUNK_SLOTS)][(int)(sid % CHUNK_SLOTS)];
	}

	/* The sessions, before the loop: a directory of chunks, each session with an empty ring. */
	static Session[][] build() {
		Session[][] dir = new Session[SESSIONS / CHUNK_SLOTS][];
		for (int c = 0; c < SESSIONS / CHUNK_SLOTS; c++)
			dir[c] = new Session[CHUNK_SLOTS];
		for (int sid = 0; sid < SESSIONS; sid++) {
			Entry[] ring = new Entry[HISTORY];
			Session s = new Session();
			s.id = sid;
			s.ring = ring;
			dir[sid / CHUNK_SLOTS][sid % CHUNK_SLOTS] = s;
		}
		return dir;
	}

	/*
	 * One request: parse (the request graph), read it back, update the session, maybe keep a
	 * history entry, reply. Returns the reply's value.
	 */
	static long serve(Session[][] dir, long seq, long sid) {
		long value = 0;

		Request req = new Request();
		req.sid = sid;
		req.seq = seq;
		for (int f = 0; f < FIELDS; f++) {
			long[] words = new long[FIELD_WORDS];
			for (int k = 0; k < FIELD_WORDS; k++)
				words[k] = fieldWord(seq, f, k);
			req.setField(f, words);
		}
		for (int f = 0; f < FIELDS; f++) {
			long[] words = req.field(f);
			for (int k = 0; k < FIELD_WORDS; k++) {
				if (words[k] != fieldWord(seq, f, k))
					throw fail(seq, "a field word", words[k], fieldWord(seq, f, k));
				value += words[k];
			}
		}

		Session s = session(dir, sid);
		if (s.id != sid)
			throw fail(seq, "the session id", s.id, sid);
		long hits = s.hits + 1;
		s.hits = hits;
		s.sum ^= value;
		if (seq % KEEP_EVERY == 0) {
			Entry e = new Entry();
			e.seq = seq;
			e.value = value;
			e.sid = sid;
			s.ring[(int)(hits % HISTORY)] = e;
		}

		Reply reply = new Reply();
		reply.value = value;
		reply.hits = hits;
		long expect = value;
		value = reply.value ^ (reply.hits << 32);
		if (reply.value != expect)
			throw fail(seq, "the reply", reply.value, expect);
		return value;
	}

	long run(long iterations) {
		long[] rng = {0x6a09e667f3bcc909L};
		long last = 0, h = 15;

		if (iterations > Integer.MAX_VALUE)
			throw new Corrupt(iterations + " requests is too many (at most "
			                  + Integer.MAX_VALUE + ")");
		long[] service = new long[(int)iterations];
		Session[][] dir = build();

		collectionsBefore = JvmCensus.collectionsSoFar();
		long first = System.nanoTime();
		for (long seq = 0; seq < iterations; seq++) {
			long sid = Long.remainderUnsigned(rand(rng), SESSIONS);
			long t0 = System.nanoTime();

			h = mix(h, serve(dir, seq, sid));
			last = System.nanoTime();
			service[(int)seq] = last - t0;
		}
		collectionsAfter = JvmCensus.collectionsSoFar();
		if (collectionsBefore < 0 || collectionsAfter < 0)
			countsKnown = false;
		JvmCensus.latencyRecord(service, last - first);

		for (long sid = 0; sid < SESSIONS; sid++) {
			Session s = session(dir, sid);

			h = mix(h, s.id);
			h = mix(h, s.hits);
			h = mix(h, s.sum);
			for (int k = 0; k < HISTORY; k++) {
				Entry e = s.ring[k];

				h = mix(h, e != null ? e.seq ^ e.value : 0);
				if (e != null && e.sid != sid)
					throw fail(e.seq, "a history entry's session", e.sid, sid);
			}
		}
		return h;
	}

	Integer premiseMet(JvmCensus c, StringBuilder why) {
		if (collectionsCounted(c, countsKnown, why) != 0)
			return -1;
		long during = collectionsAfter - collectionsBefore;
		if (during == 0) {
			why.append("no collection while requests were in flight");
			return 0;
		}
		why.append(during + " collections while requests were in flight");
		return 1;
	}

	public static void main(String[] args) {
		Probe.main(args, new P15RequestLatency());
	}
}
