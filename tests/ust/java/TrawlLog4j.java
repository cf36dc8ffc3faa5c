// SPDX-License-Identifier: MIT
// A program that logs through log4j 1.2 and LTTng's log4j agent
// (org.lttng.ust.agent.log4j.LttngLogAppender, Debian's
// lttng-ust-agent-log4j.jar), for tests/ust/java-agent.py: the same
// arguments, records and output as TrawlJul.java, at log4j's levels
// (app.db: INFO, DEBUG, WARN; other: ERROR).
import java.io.File;
import java.lang.reflect.Method;

import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.lttng.ust.agent.ILttngAgent;
import org.lttng.ust.agent.log4j.LttngLogAppender;

public class TrawlLog4j {
	static boolean waitFor(String logger) throws Exception {
		Method get = Class.forName("org.lttng.ust.agent.log4j.LttngLog4jAgent").getMethod("getInstance");
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
		LttngLogAppender appender = new LttngLogAppender();
		Logger db = Logger.getLogger("app.db");
		Logger other = Logger.getLogger("other");
		for (Logger l : new Logger[] {db, other}) {
			l.setLevel(Level.ALL);
			l.setAdditivity(false);
			l.addAppender(appender);
		}
		if (!args[0].equals("-") && !waitFor(args[0])) {
			System.err.println("the agent never enabled " + args[0]);
			System.exit(3);
		}
		System.out.println("tid " + Thread.currentThread().getName());
		System.out.println("ms " + System.currentTimeMillis());
		db.info("info 1"); // TRAWL-LINE info
		db.debug("debug 2");
		db.warn("warning 3");
		other.error("other 4");
		if (args.length > 2) {
			new File(args[1]).createNewFile();
			waitFile(args[2]);
			db.info("late 5");
			other.error("late other 6");
		}
		System.out.println("ms " + System.currentTimeMillis());
		appender.close();
	}
}
