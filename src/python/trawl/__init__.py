# SPDX-License-Identifier: MIT
"""trawl: drive trawl's session daemon from Python.

A CPython extension (trawl._ctl) on libtrawl-ctl, the same library the
`trawl` command is built on, so a Python program gets what the command does
without running it and parsing its output::

    import trawl

    with trawl.Client() as c:
        s = c.create_session("demo", output="/tmp/demo")
        s.enable_event("my_provider:*")          # user space, channel0
        s.add_context("vpid")
        s.start()
        ...
        s.stop()
        print(s.info().domains["ust"].events_discarded)
        s.destroy()

Which daemon: as the `trawl` command (root and members of the group
`tracing` use the root daemon when it runs; other users their own, started
on first use). Every failure raises trawl.Error, an OSError whose errno is
the C API's (ENOENT: no such session, EEXIST, EBUSY...) and whose strerror is
the daemon's one-line explanation.

Domains are "ust" (also "userspace") and "kernel"; process attributes "pid",
"vpid", "uid", "vuid", "gid", "vgid"; event kinds "tracepoint", "syscall",
"probe", "function", "userspace-probe"; buffering "per-uid", "per-pid",
"global". Sizes are bytes and timers microseconds, as in <trawl/ctl.h>.
"""
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from . import _ctl


class Error(OSError):
    """A call of libtrawl-ctl failed: errno and the daemon's one line."""


_ctl._set_error(Error)

__version__ = _ctl.version()
current_session = _ctl.current_session
set_current_session = _ctl.set_current_session
loglevel_name = _ctl.loglevel_name


@dataclass(frozen=True)
class SessionInfo:
    name: str
    output: Optional[str]  # folder, net://... URL, or None without output
    active: bool
    snapshot: bool
    live_timer_us: int     # 0: not live
    uid: int
    shm_path: Optional[str] = None  # where its user-space buffers are files (--shm-path)


@dataclass(frozen=True)
class EventInfo:
    domain: str
    channel: str
    name: str
    kind: str
    enabled: bool
    loglevel_type: str     # "all", "range" (this level or more severe), "single"
    loglevel: Optional[int]
    filter: Optional[str]
    target: Optional[str]
    exclusions: List[str] = field(default_factory=list)


@dataclass(frozen=True)
class ChannelInfo:
    domain: str
    name: str
    enabled: bool
    overwrite: bool
    subbuf_size: int
    num_subbuf: int
    switch_timer_us: int
    read_timer_us: int
    buffers: str
    tracefile_size: int = 0   # bytes per stream file, 0: one file
    tracefile_count: int = 0  # files kept per stream, 0: all
    blocking_timeout_us: int = 0  # -1: infinite
    discarded_events: int = 0  # LTTng's statistics: discard mode, events dropped
    lost_packets: int = 0      # overwrite mode: packets overwritten unread
    output: str = "mmap"       # "mmap" or "splice": what the channel says (trawl writes alike)
    monitor_timer_us: int = 0  # how often its buffers are sampled for triggers, 0: never
    memory_resident: int = 0   # bytes of buffer pages written (user space, list of a session)
    memory_size: int = 0       # bytes of its buffer files (0: none made yet, no app traced)
    contexts: List[str] = field(default_factory=list)
    events: List[EventInfo] = field(default_factory=list)


@dataclass(frozen=True)
class TrackerInfo:
    domain: str
    attr: str
    include_all: bool
    values: List[int] = field(default_factory=list)  # the inclusion set (include_all False)


@dataclass(frozen=True)
class DomainInfo:
    domain: str
    consumer_alive: bool
    events_discarded: int
    bytes_written: int
    problem: Optional[str]
    trackers: Dict[str, TrackerInfo] = field(default_factory=dict)
    channels: Dict[str, ChannelInfo] = field(default_factory=dict)
    # an agent domain's ("jul", "log4j", "python") rules: it has no channels
    events: List["EventInfo"] = field(default_factory=list)


@dataclass(frozen=True)
class RotationSchedule:
    kind: str   # "timer" or "size"
    value: int  # µs or bytes


@dataclass(frozen=True)
class SessionDescription:
    """A session in detail: Session.info()."""
    session: SessionInfo
    rotation_schedules: List[RotationSchedule]
    domains: Dict[str, DomainInfo]


@dataclass(frozen=True)
class FieldInfo:
    domain: str
    event: str
    name: str
    type: str


@dataclass(frozen=True)
class AvailableEvent:
    domain: str
    name: str
    kind: str
    loglevel: Optional[int]
    pid: int
    fields: List[FieldInfo] = field(default_factory=list)


@dataclass(frozen=True)
class SnapshotInfo:
    session: str
    path: str
    seq: int


@dataclass(frozen=True)
class SnapshotOutput:
    id: int
    name: str
    ctrl_url: str
    data_url: Optional[str]
    max_size: int


@dataclass(frozen=True)
class RotationInfo:
    session: str
    path: str
    chunk_id: int


# ---- triggers ----

@dataclass(frozen=True)
class TriggerAction:
    """An action of a trigger (Client.triggers()) with its rate policy and counts."""
    kind: str          # "notify", "start-session", "stop-session", "rotate-session",
    #                    "snapshot-session"
    session: Optional[str]
    rate_policy: str   # "every" or "once-after"
    rate_value: int
    runs: int
    failures: int


@dataclass(frozen=True)
class TriggerInfo:
    """A trigger as the daemon has it (Client.add_trigger(), Client.triggers())."""
    name: str
    owner_uid: int
    condition: str     # "event-rule-matches", "session-consumed-size",
    #                    "buffer-usage-high", "buffer-usage-low"
    domain: str
    pattern: str
    filter: Optional[str]
    exclusions: List[str]
    captures: List[str]
    session: Optional[str]
    channel: Optional[str]
    ratio: Optional[float]  # buffer usage as a ratio of the buffer's size, else None
    threshold: int          # bytes (consumed size; buffer usage without ratio)
    nr_actions: int
    occurrences: int        # times the condition held
    location: Optional[str] = None  # a kernel probe rule's (pattern: its event name)
    # event rule matches: matches whose hit the tracer or daemon dropped
    # (list-triggers' "discarded tracer messages"); occurrences + discarded
    # is every match
    discarded: int = 0
    actions: List[TriggerAction] = field(default_factory=list)


def _triggers(records) -> List[TriggerInfo]:
    out = []
    for kind, d in records:
        if kind == "trigger":
            out.append(TriggerInfo(**d))
        elif kind == "trigger_action" and out:
            out[-1].actions.append(TriggerAction(**d))
    return out


class Action:
    """A trigger's action: Action.notify(), Action.stop_session("s", every=2)...

    every=N runs it at the Nth, 2Nth... time the condition holds (1: each
    time); once_after=N only at the Nth."""

    def __init__(self, kind: str, session: Optional[str] = None, *, every: int = 1,
                 once_after: Optional[int] = None, output: Optional[str] = None):
        self.kind, self.session, self.output = kind, session, output
        self.policy, self.n = ("once-after", once_after) if once_after else ("every", every)

    @classmethod
    def notify(cls, **policy) -> "Action":
        return cls("notify", **policy)

    @classmethod
    def start_session(cls, session: str, **policy) -> "Action":
        return cls("start-session", session, **policy)

    @classmethod
    def stop_session(cls, session: str, **policy) -> "Action":
        return cls("stop-session", session, **policy)

    @classmethod
    def rotate_session(cls, session: str, **policy) -> "Action":
        return cls("rotate-session", session, **policy)

    @classmethod
    def snapshot_session(cls, session: str, output: Optional[str] = None,
                         **policy) -> "Action":
        """output: a folder or URL for the snapshot, else the session's own output."""
        return cls("snapshot-session", session, output=output, **policy)

    def _spec(self):
        return (self.kind, self.session, self.policy, self.n, self.output)


class Condition:
    """A trigger's condition, as LTTng 2.13's (its C API's for the last three)."""

    def __init__(self, condition: str, **kw):
        self.kind, self.kw = condition, kw

    @classmethod
    def event_rule_matches(cls, pattern: Optional[str] = None, domain: str = "ust", *,
                           kind: str = "tracepoint", filter: Optional[str] = None,
                           loglevel=None, loglevel_type: Optional[str] = None,
                           exclude=None, captures=None, location: Optional[str] = None,
                           event_name: Optional[str] = None) -> "Condition":
        """An event matches the rule (pattern None: "*"); captures: field
        names whose values the notifications carry. Kernel probe rules
        (kind "probe" or "userspace-probe") take a location and an
        event_name instead of a pattern: see kprobe() and uprobe()."""
        kw = dict(pattern=pattern, domain=domain, kind=kind, filter=filter, loglevel=loglevel,
                  loglevel_type=loglevel_type, exclude=exclude, captures=captures)
        if location is not None or event_name is not None:
            kw.update(location=location, event_name=event_name)
        return cls("event-rule-matches", **kw)

    @classmethod
    def kprobe(cls, location: str, event_name: Optional[str] = None, *,
               captures=None) -> "Condition":
        """A kernel probe is hit (LTTng's --type=kernel:kprobe): location
        SYMBOL, SYMBOL+OFFSET or 0xADDRESS; event_name the rule's (None: the
        location). Needs the root daemon and a kernel with kprobe_events."""
        return cls.event_rule_matches(domain="kernel", kind="probe", location=location,
                                      event_name=event_name, captures=captures)

    @classmethod
    def uprobe(cls, location: str, event_name: Optional[str] = None, *,
               captures=None) -> "Condition":
        """A user-space probe is hit (LTTng's --type=kernel:uprobe): location
        [elf:]PATH:SYMBOL or sdt:PATH:PROVIDER:NAME, PATH absolute and
        readable by the caller; event_name as kprobe()'s. Captures see a
        function's first six integer arguments as a0..a5. Needs the root
        daemon."""
        return cls.event_rule_matches(domain="kernel", kind="userspace-probe",
                                      location=location, event_name=event_name,
                                      captures=captures)

    @classmethod
    def session_consumed_size(cls, session: str, bytes: int) -> "Condition":
        """The session's consumers wrote @bytes (sampled at its channels' monitor timers)."""
        return cls("session-consumed-size", session=session, bytes=bytes)

    @classmethod
    def buffer_usage_high(cls, session: str, channel: str, *, ratio: Optional[float] = None,
                          bytes: Optional[int] = None, domain: str = "ust") -> "Condition":
        """Some buffer of the channel holds at least @ratio of its size (or @bytes)."""
        return cls("buffer-usage-high", session=session, channel=channel, ratio=ratio,
                   bytes=bytes, domain=domain)

    @classmethod
    def buffer_usage_low(cls, session: str, channel: str, *, ratio: Optional[float] = None,
                         bytes: Optional[int] = None, domain: str = "ust") -> "Condition":
        """Every buffer of the channel holds at most @ratio of its size (or @bytes)."""
        return cls("buffer-usage-low", session=session, channel=channel, ratio=ratio,
                   bytes=bytes, domain=domain)


@dataclass(frozen=True)
class Notification:
    """A trigger's notify action, received on a notification channel."""
    trigger: str
    owner_uid: int
    condition: str
    timestamp_ns: int   # CLOCK_MONOTONIC: of the event, or of the sample that fired it
    captures: List[str] = field(default_factory=list)  # as text, as `trawl` prints them
    # typed: int (integers, enumerations' values), float, str, list of ints,
    # None where the event lacked the field (text "<unavailable>")
    values: List[Any] = field(default_factory=list)


class Notifications:
    """A notification channel: iterate to wait for the notifications of the
    triggers subscribed to (those of the user's triggers with a notify
    action, from the channel's creation on)::

        with trawl.notifications("on-error", "buffers-full") as ns:
            for n in ns:              # blocks; ends when ns.close() is called
                print(n.trigger, n.captures)

    timeout (seconds, None: none) ends the iteration when no notification
    came for that long. close() (any thread) ends a wait under way within
    0.2 s; Ctrl-C interrupts it (KeyboardInterrupt)."""

    def __init__(self, *triggers: str, timeout: Optional[float] = None):
        self._ch = _ctl.NotificationChannel()
        self.timeout = timeout
        for t in triggers:
            self.subscribe(t)

    def subscribe(self, trigger: str):
        self._ch.subscribe(trigger)

    def unsubscribe(self, trigger: str):
        self._ch.subscribe(trigger, True)

    def receive(self, timeout: Optional[float] = None) -> Optional[Notification]:
        """The next notification, or None after @timeout seconds (None: wait on)
        or once the channel is closed."""
        d = self._ch.receive(-1 if timeout is None else max(0, int(timeout * 1000)))
        return Notification(**d) if d is not None else None

    def __iter__(self):
        return self

    def __next__(self) -> Notification:
        try:
            n = self.receive(self.timeout)
        except ValueError:  # closed before this wait
            raise StopIteration from None
        if n is None:
            raise StopIteration
        return n

    def fileno(self) -> int:
        """For select/poll: readable when a notification may have come."""
        return self._ch.fileno()

    @property
    def dropped(self) -> int:
        """Notifications lost since the channel's creation (it took them too
        slowly, or their events were dropped before their triggers ran: the
        user's programs fired more than the daemon holds for one user)."""
        return self._ch.dropped()

    def close(self):
        self._ch.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def notifications(*triggers: str, timeout: Optional[float] = None) -> Notifications:
    """A notification channel subscribed to @triggers (see Notifications)."""
    return Notifications(*triggers, timeout=timeout)


def _one(records, kind, cls):
    for k, d in records:
        if k == kind:
            return cls(**d)
    raise Error(0, "the daemon sent no %s record" % kind)


def _describe(records) -> SessionDescription:
    """The records of trawl_ctl_list_session() as one SessionDescription."""
    session = None
    schedules, domains = [], {}
    dom = chan = tracker = None
    for kind, d in records:
        if kind == "session":
            session = SessionInfo(**d)
        elif kind == "rotation_schedule":
            schedules.append(RotationSchedule(**d))
        elif kind == "domain":
            dom = DomainInfo(**d)
            domains[dom.domain] = dom
            chan = tracker = None
        elif kind == "tracker":
            tracker = TrackerInfo(d["domain"], d["attr"], d["include_all"])
            dom.trackers[tracker.attr] = tracker
        elif kind == "tracker_value":
            tracker.values.append(d["value"])
        elif kind == "channel":
            chan = ChannelInfo(**d)
            dom.channels[chan.name] = chan
        elif kind == "context":
            chan.contexts.append(d["name"])
        elif kind == "event" and chan is None:
            dom.events.append(EventInfo(**d))
        elif kind == "event":
            chan.events.append(EventInfo(**d))
    if session is None:
        raise Error(0, "the daemon sent no session record")
    return SessionDescription(session, schedules, domains)


class Client:
    """A connection to a session daemon (struct trawl_ctl).

    spawn=False: fail (trawl.Error, ENOTCONN) rather than start the user's
    daemon; user=True: the user's own daemon even when root's is usable.
    """

    def __init__(self, spawn: bool = True, user: bool = False):
        self._c = _ctl.Ctl(spawn=spawn, user=user)

    def close(self):
        self._c.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def is_root_daemon(self) -> bool:
        return self._c.is_root_daemon()

    def quit_daemon(self):
        """Ask the daemon to exit (its owner or root only)."""
        self._c.daemon_quit()

    def create_session(self, name: Optional[str] = None, output: Optional[str] = None, *,
                       no_output: bool = False, snapshot: bool = False,
                       live=None, shm_path: Optional[str] = None) -> "Session":
        """Create a session; output is a folder, file://, or net://HOST[:C[:D]][/PATH].

        live: None (not live), True (the default timer), or the timer in µs.
        shm_path: the folder its user-space buffers are files in, as given
        (`trawl create --shm-path DIR` gives DIR/NAME-DATE); `trawl crash` reads them.
        """
        if live is True:
            live = _ctl.LIVE_TIMER_DEFAULT
        elif live is False:
            live = None
        rec = _one(self._c.create_session(name=name, output=output, no_output=no_output,
                                          snapshot=snapshot, live_us=live),
                   "session", SessionInfo)
        if shm_path is not None:
            try:
                self._c.set_shm_path(rec.name, os.path.abspath(shm_path))
            except Exception:
                self._c.destroy_session(rec.name)
                raise
        return Session(self, rec.name)

    def session(self, name: str) -> "Session":
        """A handle on an existing session (not checked until used)."""
        return Session(self, name)

    def sessions(self) -> List[SessionInfo]:
        return [SessionInfo(**d) for k, d in self._c.list_sessions() if k == "session"]

    def destroy_all(self):
        self._c.destroy_all()

    def add_trigger(self, condition: Condition, actions, name: Optional[str] = None,
                    owner_uid: Optional[int] = None) -> TriggerInfo:
        """Register a trigger (LTTng's add-trigger); actions: an Action or a list.
        Unnamed, the daemon names it triggerN."""
        if isinstance(actions, Action):
            actions = [actions]
        recs = self._c.add_trigger(condition.kind, [a._spec() for a in actions], name=name,
                                   owner_uid=owner_uid, **condition.kw)
        return _triggers(recs)[0]

    def remove_trigger(self, name: str, owner_uid: Optional[int] = None):
        self._c.remove_trigger(name, owner_uid=owner_uid)

    def triggers(self) -> List[TriggerInfo]:
        """The triggers the caller may see (root: every user's), in the order registered."""
        return _triggers(self._c.list_triggers())

    def available_events(self, domain: str = "ust", kind: str = "tracepoint",
                         fields: bool = False) -> List[AvailableEvent]:
        """The events a domain offers (user space: those of the apps registered now)."""
        out = []
        for k, d in self._c.list_available(domain, kind, fields):
            if k == "available":
                out.append(AvailableEvent(**d))
            elif k == "field" and out:
                out[-1].fields.append(FieldInfo(**d))
        return out


class Session:
    """A session of a Client, by name."""

    def __init__(self, client: Client, name: str):
        self.client = client
        self.name = name

    def __repr__(self):
        return "trawl.Session(%r)" % self.name

    @property
    def _c(self):
        return self.client._c

    def info(self) -> SessionDescription:
        return _describe(self._c.list_session(self.name))

    def start(self):
        self._c.start(self.name)

    def stop(self):
        """Stop tracing; returns once what was recorded is on disk."""
        self._c.stop(self.name)

    def destroy(self):
        self._c.destroy_session(self.name)

    def clear(self):
        self._c.clear(self.name)

    def rotate(self) -> RotationInfo:
        return _one(self._c.rotate(self.name), "rotation", RotationInfo)

    def enable_rotation(self, timer_us: Optional[int] = None, size: Optional[int] = None):
        if timer_us is None and size is None:
            raise ValueError("give timer_us, size or both")
        if timer_us is not None:
            self._c.rotation_schedule(self.name, "timer", timer_us)
        if size is not None:
            self._c.rotation_schedule(self.name, "size", size)

    def disable_rotation(self, timer: bool = False, size: bool = False):
        if not (timer or size):
            raise ValueError("give timer=True, size=True or both")
        if timer:
            self._c.rotation_schedule(self.name, "timer")
        if size:
            self._c.rotation_schedule(self.name, "size")

    def regenerate_metadata(self):
        self._c.regenerate_metadata(self.name)

    def regenerate_statedump(self):
        self._c.regenerate_statedump(self.name)

    # channels, events, contexts

    def enable_channel(self, name: str, domain: str = "ust", **attrs) -> "Channel":
        """Create (or enable again) a channel. attrs: subbuf_size, num_subbuf,
        overwrite, switch_timer_us, read_timer_us, buffers, tracefile_size,
        tracefile_count (LTTng's trace file limits: stream files of at most
        tracefile_size bytes, the newest tracefile_count kept), monitor_timer_us
        (how often its buffers are sampled for buffer-usage and
        session-consumed-size triggers; 0: never; default 1 s), blocking_timeout_us
        (user space, discard mode: microseconds a writer waits for room in a
        full buffer; -1 or "inf": without end; 0: never, the default; the app
        must allow it: LTTNG_UST_ALLOW_BLOCKING in its environment)."""
        self._c.enable_channel(self.name, domain, name, **attrs)
        return Channel(self, domain, name)

    def channel(self, name: str, domain: str = "ust") -> "Channel":
        return Channel(self, domain, name)

    def disable_channel(self, name: str, domain: str = "ust"):
        self._c.disable_channel(self.name, domain, name)

    def enable_event(self, name: str, domain: str = "ust", channel: Optional[str] = None,
                     **rule):
        """Enable an event rule. rule: kind, target, filter, loglevel (name or
        0..14), loglevel_type ("range", the default with a level, or "single"),
        exclude (names or '*' patterns a '*' rule leaves out, user space)."""
        self._c.enable_event(self.name, domain, name, channel, **rule)

    def disable_event(self, name: str, domain: str = "ust", channel: Optional[str] = None,
                      kind: str = "tracepoint"):
        self._c.disable_event(self.name, domain, name, channel, kind)

    def add_context(self, context: str, domain: str = "ust", channel: Optional[str] = None):
        self._c.add_context(self.name, domain, context, channel)

    # trackers

    def track(self, attr: str, *values: int, domain: str = "ust", all: bool = False):
        """Add values to a tracker's inclusion set; all=True: every process again."""
        if all:
            self._c.track(self.name, domain, attr, None)
        for v in values:
            self._c.track(self.name, domain, attr, v)

    def untrack(self, attr: str, *values: int, domain: str = "ust", all: bool = False):
        """Remove values from a tracker's set; all=True: empty it (no process)."""
        if all:
            self._c.untrack(self.name, domain, attr, None)
        for v in values:
            self._c.untrack(self.name, domain, attr, v)

    # snapshots

    def snapshot_record(self, url: Optional[str] = None, name: Optional[str] = None,
                        max_size: Optional[int] = None) -> SnapshotInfo:
        return _one(self._c.snapshot_record(self.name, name=name, url=url, max_size=max_size),
                    "snapshot", SnapshotInfo)

    def snapshot_add_output(self, url: str, name: Optional[str] = None,
                            max_size: Optional[int] = None) -> SnapshotOutput:
        return _one(self._c.snapshot_add_output(self.name, url, name=name, max_size=max_size),
                    "snapshot_output", SnapshotOutput)

    def snapshot_del_output(self, id_or_name):
        self._c.snapshot_del_output(self.name, id_or_name)

    def snapshot_outputs(self) -> List[SnapshotOutput]:
        return [SnapshotOutput(**d) for k, d in self._c.snapshot_outputs(self.name)
                if k == "snapshot_output"]


class Channel:
    """A channel of a Session, by domain and name."""

    def __init__(self, session: Session, domain: str, name: str):
        self.session = session
        self.domain = domain
        self.name = name

    def __repr__(self):
        return "trawl.Channel(%r, %r, %r)" % (self.session.name, self.domain, self.name)

    def enable_event(self, name: str, **rule):
        self.session.enable_event(name, self.domain, self.name, **rule)

    def disable_event(self, name: str, kind: str = "tracepoint"):
        self.session.disable_event(name, self.domain, self.name, kind)

    def add_context(self, context: str):
        self.session.add_context(context, self.domain, self.name)

    def enable(self):
        self.session.enable_channel(self.name, self.domain)

    def disable(self):
        self.session.disable_channel(self.name, self.domain)

    def info(self) -> ChannelInfo:
        dom = self.session.info().domains.get(self.domain)
        if dom is None or self.name not in dom.channels:
            raise Error(2, "no channel %s in the %s domain of session %s"
                        % (self.name, self.domain, self.session.name))
        return dom.channels[self.name]
