// SPDX-License-Identifier: MIT
// A program that logs through java.util.logging and LTTng's JUL agent
// (org.lttng.ust.agent.jul.LttngLogHandler, Debian's lttng-ust-agent-jul.jar),
// for tests/ust/java-agent.py. Arguments: LOGGER [READY GO].
// It waits (at most 60 s) until the agent has a rule enabling LOGGER ("-":
// does not wait): the agent waits only 3 s for its session daemon, and a
// loaded machine may take longer. Then it logs on app.db (INFO, FINE,
// WARNING) and other (SEVERE); with READY and GO, it makes READY, waits
// for GO to exist and logs once more on each. It prints its thread's JUL
// id ("tid N") and the wall clock before and after ("ms N").
import java.io.File;
import java.lang.reflect.Method;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.lttng.ust.agent.ILttngAgent;
import org.lttng.ust.agent.jul.LttngLogHandler;

public class TrawlJul {
	static boolean waitFor(String logger) throws Exception {
		Method get = Class.forName("org.lttng.ust.agent.jul.LttngJulAgent").getMethod("getInstance");
		get.setAccessible(true);
		ILttngAgent<?> agent = (ILttngAgent<?>) get.invoke(null);
		long end = System.nanoTime() + 60_000_000_000L;
		while (!agent.isEventEnabled(logger)) {
			if (System.nanoTime() > end)
				return false;
			Thread.sleep(20);
		}
		return true;
	}

	static void waitFile(String path) throws InterruptedException {
		long end = System.nanoTime() + 60_000_000_000L;
		while (!new File(path).exists() && System.nanoTime() < end)
			Thread.sleep(20);
	}

	public static void main(String[] args) throws Exception {
		Handler handler = new LttngLogHandler();
		Logger db = Logger.getLogger("app.db");
		Logger other = Logger.getLogger("other");
		for (Logger l : new Logger[] {db, other}) {
			l.setLevel(Level.ALL);
			l.setUseParentHandlers(false);
			l.addHandler(handler);
		}
		if (!args[0].equals("-") && !waitFor(args[0])) {
			System.err.println("the agent never enabled " + args[0]);
			System.exit(3);
		}
		System.out.println("tid " + (int) Thread.currentThread().getId());
		System.out.println("ms " + System.currentTimeMillis());
		db.log(Level.INFO, "info {0}", 1); // TRAWL-LINE info
		db.fine("fine 2");
		db.warning("warning 3");
		other.severe("other 4");
		if (args.length > 2) {
			new File(args[1]).createNewFile();
			waitFile(args[2]);
			db.info("late 5");
			other.severe("late other 6");
		}
		System.out.println("ms " + System.currentTimeMillis());
		handler.close();
	}
}
