// SPDX-License-Identifier: MIT
// A program for tests/ust/java-appcap.py: a trigger's captures of
// application contexts ($app.PROVIDER:KEY). It logs through
// java.util.logging (argument jul) or log4j 1.2 (log4j) with LTTng's agent
// and registers an IContextInfoRetriever named "trawl" answering each key
// with a value of one Java type (TrawlAppCtx's: int 42, long -5000000000,
// double 2.5, float 1.25, byte -7, short 300, bool true, string
// "hello world", char 'x'; null for "null" and for any key it does not
// know). It waits (at most 60 s) until the agent has a rule for logger
// app.db and, with a second argument N, N application contexts enabled
// (the session daemon sends the agent each apart from the rule: a record
// logged before they came carries none), logs "cap 1", registers a second
// retriever "late" (answers
// "late:" + KEY), logs "cap 2", and prints the application contexts its
// agent was told of ("enabled [...]").
import java.lang.reflect.Method;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.lttng.ust.agent.ILttngAgent;
import org.lttng.ust.agent.context.ContextInfoManager;
import org.lttng.ust.agent.context.IContextInfoRetriever;

public class TrawlAppCap {
	static void call(Method m, Object o, Object arg) {
		try {
			m.invoke(o, arg);
		} catch (Exception e) {
			throw new RuntimeException(e);
		}
	}

	/* How many contexts getEnabledAppContexts() holds: entries of a
	 * provider's name and the map of its contexts. */
	static int enabled(Object entries) {
		int n = 0;

		for (Object e : (java.util.Collection<?>) entries)
			n += ((java.util.Map<?, ?>) ((java.util.Map.Entry<?, ?>) e).getValue()).size();
		return n;
	}

	public static void main(String[] args) throws Exception {
		boolean jul = args[0].equals("jul");
		Runnable log1, log2;
		String agentClass;
		ContextInfoManager cim = ContextInfoManager.getInstance();
		cim.registerContextInfoRetriever("trawl", new IContextInfoRetriever() {
			@Override
			public Object retrieveContextInfo(String key) {
				return TrawlAppCtx.value(key);
			}
		});
		if (jul) {
			java.util.logging.Handler h = (java.util.logging.Handler) Class
				.forName("org.lttng.ust.agent.jul.LttngLogHandler").getConstructor().newInstance();
			Logger db = Logger.getLogger("app.db");
			db.setLevel(Level.ALL);
			db.setUseParentHandlers(false);
			db.addHandler(h);
			log1 = () -> db.info("cap 1");
			log2 = () -> db.info("cap 2");
			agentClass = "org.lttng.ust.agent.jul.LttngJulAgent";
		} else {
			Class<?> lg = Class.forName("org.apache.log4j.Logger");
			Class<?> level = Class.forName("org.apache.log4j.Level");
			Object db = lg.getMethod("getLogger", String.class).invoke(null, "app.db");
			lg.getMethod("setLevel", level).invoke(db, level.getField("ALL").get(null));
			Object appender = Class.forName("org.lttng.ust.agent.log4j.LttngLogAppender")
				.getConstructor().newInstance();
			lg.getMethod("addAppender", Class.forName("org.apache.log4j.Appender"))
				.invoke(db, appender);
			Method info = lg.getMethod("info", Object.class);
			log1 = () -> call(info, db, "cap 1");
			log2 = () -> call(info, db, "cap 2");
			agentClass = "org.lttng.ust.agent.log4j.LttngLog4jAgent";
		}
		Method get = Class.forName(agentClass).getMethod("getInstance");
		get.setAccessible(true);
		ILttngAgent<?> agent = (ILttngAgent<?>) get.invoke(null);
		Method ctxs = agent.getClass().getMethod("getEnabledAppContexts");
		ctxs.setAccessible(true);
		int want = args.length > 1 ? Integer.parseInt(args[1]) : 0;
		long end = System.nanoTime() + 60_000_000_000L;
		while (!agent.isEventEnabled("app.db") || enabled(ctxs.invoke(agent)) < want) {
			if (System.nanoTime() > end) {
				System.err.println("the agent never enabled app.db with " + want +
						   " application contexts: " + ctxs.invoke(agent));
				System.exit(3);
			}
			Thread.sleep(20);
		}
		log1.run();
		cim.registerContextInfoRetriever("late", new IContextInfoRetriever() {
			@Override
			public Object retrieveContextInfo(String key) {
				return "late:" + key;
			}
		});
		log2.run();
		System.out.println("enabled " + ctxs.invoke(agent));
		cim.unregisterContextInfoRetriever("late");
		cim.unregisterContextInfoRetriever("trawl");
	}
}
