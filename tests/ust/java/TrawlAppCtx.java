// SPDX-License-Identifier: MIT
// A program with application contexts ($app.PROVIDER:KEY) for
// tests/ust/java-appctx.py: it logs through java.util.logging (argument
// jul) or log4j 1.2 (log4j) with LTTng's agent, and registers an
// IContextInfoRetriever named "trawl" that answers each key with a value of
// one Java type: int 42, long -5000000000, double 2.5, float 1.25,
// byte -7, short 300, bool true, string "hello world", char 'x', null (a
// key it does not supply). It waits (at most 60 s) until the agent has a
// rule for app.db and an application context enabled, logs "ctx 1", then
// registers a second retriever "late" (answers "late:" + KEY) and logs
// "ctx 2". It prints "registered trawl true", "registered late true"
// (what registerContextInfoRetriever answered). With a second argument
// "hostile" (jul only), it then hands LttngJulApi.tracepointWithContext
// arrays of its own, made to break a reader ("hostile N", below).
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.logging.Level;
import java.util.logging.Logger;

import org.lttng.ust.agent.ILttngAgent;
import org.lttng.ust.agent.context.ContextInfoManager;
import org.lttng.ust.agent.context.IContextInfoRetriever;

public class TrawlAppCtx {
	static Object value(String key) {
		switch (key) {
		case "int": return Integer.valueOf(42);
		case "long": return Long.valueOf(-5000000000L);
		case "double": return Double.valueOf(2.5);
		case "float": return Float.valueOf(1.25f);
		case "byte": return Byte.valueOf((byte) -7);
		case "short": return Short.valueOf((short) 300);
		case "bool": return Boolean.TRUE;
		case "string": return "hello world";
		case "char": return Character.valueOf('x');
		default: return null;
		}
	}

	static void call(Method m, Object o, Object arg) {
		try {
			m.invoke(o, arg);
		} catch (Exception e) {
			throw new RuntimeException(e);
		}
	}

	static boolean waitFor(String agentClass, String logger) throws Exception {
		Method get = Class.forName(agentClass).getMethod("getInstance");
		get.setAccessible(true);
		ILttngAgent<?> agent = (ILttngAgent<?>) get.invoke(null);
		Method ctxs = agent.getClass().getMethod("getEnabledAppContexts");
		ctxs.setAccessible(true);
		long end = System.nanoTime() + 60_000_000_000L;
		while (!agent.isEventEnabled(logger) ||
		       ((java.util.Collection<?>) ctxs.invoke(agent)).isEmpty()) {
			if (System.nanoTime() > end)
				return false;
			Thread.sleep(20);
		}
		return true;
	}

	public static void main(String[] args) throws Exception {
		boolean jul = args[0].equals("jul");
		Runnable log1, log2;
		String agentClass;
		ContextInfoManager cim = ContextInfoManager.getInstance();
		boolean ok = cim.registerContextInfoRetriever("trawl", new IContextInfoRetriever() {
			@Override
			public Object retrieveContextInfo(String key) {
				return value(key);
			}
		});
		System.out.println("registered trawl " + ok);
		if (jul) {
			/* by reflection: the log4j test's classpath has no JUL agent */
			java.util.logging.Handler h = (java.util.logging.Handler) Class
				.forName("org.lttng.ust.agent.jul.LttngLogHandler").getConstructor().newInstance();
			Logger db = Logger.getLogger("app.db");
			db.setLevel(Level.ALL);
			db.setUseParentHandlers(false);
			db.addHandler(h);
			log1 = () -> db.info("ctx 1");
			log2 = () -> db.info("ctx 2");
			agentClass = "org.lttng.ust.agent.jul.LttngJulAgent";
		} else {
			/* log4j by reflection: the jul test's classpath has no log4j */
			Class<?> lg = Class.forName("org.apache.log4j.Logger");
			Class<?> level = Class.forName("org.apache.log4j.Level");
			Object db = lg.getMethod("getLogger", String.class).invoke(null, "app.db");
			lg.getMethod("setLevel", level).invoke(db, level.getField("ALL").get(null));
			Object appender = Class.forName("org.lttng.ust.agent.log4j.LttngLogAppender")
				.getConstructor().newInstance();
			lg.getMethod("addAppender", Class.forName("org.apache.log4j.Appender"))
				.invoke(db, appender);
			Method info = lg.getMethod("info", Object.class);
			log1 = () -> call(info, db, "ctx 1");
			log2 = () -> call(info, db, "ctx 2");
			agentClass = "org.lttng.ust.agent.log4j.LttngLog4jAgent";
		}
		if (!waitFor(agentClass, "app.db")) {
			System.err.println("the agent never enabled app.db with an application context");
			System.exit(3);
		}
		log1.run();
		ok = cim.registerContextInfoRetriever("late", new IContextInfoRetriever() {
			@Override
			public Object retrieveContextInfo(String key) {
				return "late:" + key;
			}
		});
		System.out.println("registered late " + ok);
		log2.run();
		if (jul && args.length > 1 && args[1].equals("hostile"))
			hostile();
		cim.unregisterContextInfoRetriever("late");
		cim.unregisterContextInfoRetriever("trawl");
	}

	/* One entry: name offset, type, value (an int, or a string offset). */
	static byte[] entry(ByteBuffer b, int nameOff, int type, int value) {
		b.putInt(nameOff).put((byte) type).putInt(value).putInt(0);
		return b.array();
	}

	static ByteBuffer entries(int bytes) {
		return ByteBuffer.allocate(bytes).order(ByteOrder.nativeOrder());
	}

	static byte[] bytes(String s) {
		return s.getBytes(StandardCharsets.UTF_8);
	}

	static void hostile() throws Exception {
		Method tp = null;
		for (Method m : Class.forName("org.lttng.ust.agent.jul.LttngJulApi").getDeclaredMethods())
			if (m.getName().equals("tracepointWithContext"))
				tp = m;
		tp.setAccessible(true);
		String name = "$app.trawl:int\0\0", sname = "$app.trawl:string\0\0";
		ByteBuffer two = entries(26);
		two.putInt(-5).put((byte) 1).putInt(1).putInt(0);
		two.putInt(1000).put((byte) 1).putInt(1).putInt(0);
		byte[][][] cases = {
			/* 1: 20 bytes of entries: the first whole, then 7 stray bytes */
			{entry(entries(20), 0, 1, 7), bytes(name)},
			/* 2: name offsets before and past the strings */
			{two.array(), bytes(name)},
			/* 3: an unknown type */
			{entry(entries(13), 0, 99, 5), bytes(name)},
			/* 4: a string value without its NUL: "abc" at the very end */
			{entry(entries(13), 0, 8, bytes(sname).length), bytes(sname + "abc")},
			/* 5: a string of 5000 bytes */
			{entry(entries(13), 0, 8, bytes(sname).length), bytes(sname + "x".repeat(5000) + "\0\0")},
			/* 6: no arrays */
			{null, null},
			/* 7: the name without its NUL */
			{entry(entries(13), 0, 1, 9), bytes("$app.trawl:int")},
		};
		for (int i = 0; i < cases.length; i++)
			tp.invoke(null, "hostile " + (i + 1), "app.db", "TrawlAppCtx", "hostile",
				  System.currentTimeMillis(), 800, 1, cases[i][0], cases[i][1]);
	}
}
