#!/usr/bin/env python3
"""Replay a bench/oracle/sge run into Rota's core and compare, per job and
factor, Grid Engine's numbers with Rota's.

usage: compare_sge.py RUN_DIR ROTA_ORACLE PLUGIN_DIR [--events DIR]

RUN_DIR is a run of bench/oracle/sge made with ORACLE_BURN=0 (its
actions.log, and qstat-j.xml in each capture).  ROTA_ORACLE is the
bench/oracle/rota-oracle program of a build, PLUGIN_DIR that build's
_plugins.  For each capture the run's events up to it (submissions at
Grid Engine's submission times, -p changes, holds, releases, deletions,
the scheduler starting jobs at their start times, each user's usage as
sge_share_mon showed it) are replayed into a core configured as the
capture's sched_conf says (weights, compensation factor, tickets; the
share tree from sge_share_mon; slots urgency 100 as the harness sets it),
and the numbers printed side by side.

Grid Engine does not say when its scheduler made the numbers a capture
shows (it runs every 2 s); the waiting time, so nurg, depends on it.  Each
capture is replayed with its pass 4 s before to 2 s after the capture's
time stamp (the harness writes the stamp, then runs qstat: a pass made in
between is the one qstat shows) and the second whose waiting-time
contributions agree with qstat's (rounded) is kept and printed ("pass
taken at -2 s"; the earlier second wins a tie).

A run of `sge --scenario projects` replays its functional shares and
override tickets too: each user's and project's (a project is a Rota
account) as actions.log set them by the capture's time, on the UserName
and AccountName lines (FShares=, OTickets=); the scheduler's
weight_tickets_functional, weight_user, weight_project, weight_job,
max_functional_jobs_to_schedule, share_functional_shares,
share_override_tickets and policy_hierarchy on the Fairshare=sharetree
line; a job's -js (submit jobshare=) and qalter -ot (oticket).

A run of `sge --scenario consumable` replays its global consumables:
the global host's complex_values (global_host.txt) become Licenses=,
each one's urgency column (complexes.txt) ResourceUrgency= on the
Priority=sge line (":job" for a consumable JOB, which Grid Engine still
multiplies by the slots), and each job's hard requests of them (qstat
-j's hard resource_list) its licenses: slots x the request for a
per-slot consumable (YES), the request for a JOB one, what Grid Engine
takes from the global host when the job starts.

A run of `sge --scenario functional` replays its departments too
(DepartmentName= lines with Users=, FShares=, OTickets=; usersets of
type DEPT as actions.log set them; defaultdepartment implicit) and
weight_department (WeightDepartment=); its projects have no node in the
share tree, so each is an account with Shares=0 (no share-tree tickets,
as a Grid Engine job whose project the tree does not name), each user
that submits with -P in it with Shares=0, and a job with -P is charged
to that account.

Tolerances (the issue's): nurg, npprior, ntckts, prio within 1e-4;
tickets, and their override, functional and share-tree parts, within
0.5% (Grid Engine prints them truncated: at least 1);
rrcontr equal; wtcontr and dlcontr within 0.5 (printed rounded).  The order compared
is that of the pending jobs not held: qstat's against Rota's dispatch
order.  Exit status 0 when everything agrees.
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import model_policies
import parse_sge

TOL = {'nurg': 1e-4, 'npprior': 1e-4, 'ntckts': 1e-4, 'prio': 1e-4}


def actions(run):
    out = []
    for line in open(os.path.join(run, 'actions.log')):
        f = line.split()
        # a sched_conf change logs its sed script's other lines bare
        if len(f) >= 2 and f[0].isdigit():
            out.append((int(f[0]), f[1], f[2:]))
    return out


def qstat_j(capdir):
    """job -> dict of qstat -j -xml fields (first level and ja_tasks)"""
    p = os.path.join(capdir, 'qstat-j.xml')
    out = {}
    if not os.path.exists(p):
        return out
    for e in ET.parse(p).getroot().iter('element'):
        num = e.find('JB_job_number')
        if num is None:
            continue
        d = {}
        for c in e.iter():
            if c.text and c.text.strip() and c.tag not in d:
                d[c.tag] = c.text.strip()
        out[int(num.text)] = d
    return out


def licenses_of(reqs, slots, cons):
    """a job's --licenses from its hard requests: per slot (YES) x slots,
    once (JOB)"""
    lic = []
    for name, value in reqs:
        if name in cons:
            n = value * (slots if cons[name][0] == 'YES' else 1)
            lic.append('%s:%d' % (name, n))
    return ','.join(lic)


def resource_keys(cons):
    """Licenses= and ResourceUrgency= of the global consumables"""
    if not cons:
        return [], ''
    return (['Licenses=%s' % ','.join('%s:%d' % (n, c[2])
                                      for n, c in cons.items())],
            ' ResourceUrgency="%s"' % ','.join(
                '%s:%g%s' % (n, c[1], ':job' if c[0] == 'JOB' else '')
                for n, c in cons.items()))


def ge_jobs(capdir):
    jobs = {}
    for kind in ('urg', 'pri', 'ext'):
        for j, d in parse_sge.jobs_of(
                os.path.join(capdir, 'qstat-%s.xml' % kind)).items():
            jobs.setdefault(int(j), {}).update(d)
    order = [int(j) for j, d in sorted(
        jobs.items(), key=lambda x: x[0]) if False]
    # qstat's own listing order (pending jobs in dispatch order)
    listing = []
    for jl in ET.parse(os.path.join(capdir, 'qstat-urg.xml')).getroot() \
            .iter('job_list'):
        listing.append((int(jl.find('JB_job_number').text),
                        jl.find('state').text))
    order = [j for j, st in listing if st == 'qw']
    return jobs, order


def tree_conf(nodes):
    """rota.conf lines for sge_share_mon's tree; users -> their account"""
    lines, users = [], {}
    for n in nodes:
        path = n['node_name'].strip('/').split('/')
        if path == ['']:
            continue
        parent = path[-2] if len(path) > 1 else None
        if n.get('user_name'):
            users[n['user_name']] = parent or 'root'
            lines.append('UserName=%s Account=%s Shares=%s'
                         % (n['user_name'], parent or 'root', n['shares']))
        else:
            lines.append('AccountName=%s%s Shares=%s'
                         % (path[-1], ' Parent=%s' % parent if parent
                            else '', n['shares']))
    return lines, users


def entity_keys(lines, ents):
    """FShares= and OTickets= of each user and account line"""
    users, projects = ents[0], ents[1]
    out = []
    for line in lines:
        kind, name = line.split()[0].split('=')
        e = (users if kind == 'UserName' else projects).get(name)
        if e and (e.fshare or e.oticket):
            line += ' FShares=%d OTickets=%d' % (e.fshare, e.oticket)
        out.append(line)
    return out


def project_conf(run, tree_accounts, until):
    """rota.conf lines for the projects the share tree has no node of:
    an account of 0 shares (its jobs get no share-tree tickets, as a
    Grid Engine job whose project has no node), each user that submits
    with -P in it, Shares=0"""
    projects = model_policies.entities(run, until)[1]
    lines, seen = [], set()
    for name in sorted(projects):
        if name not in tree_accounts:
            lines.append('AccountName=%s Shares=0' % name)
    for _, verb, a in actions(run):
        if verb == 'qsub' and '-P' in a:
            prj = a[a.index('-P') + 1]
            if prj not in tree_accounts and (a[1], prj) not in seen:
                seen.add((a[1], prj))
                if prj not in projects:  # a project with no values
                    lines.append('AccountName=%s Shares=0' % prj)
                    projects[prj] = None
                lines.append('UserName=%s Account=%s Shares=0'
                             % (a[1], prj))
    return lines


def dept_conf(run, until):
    """DepartmentName= lines: the departments (usersets of type DEPT) as
    actions.log set them up to 'until'"""
    depts = {}
    for t, verb, a in actions(run):
        if t > until:
            break
        if verb == 'department' and len(a) >= 5:
            users = a[a.index('entries') + 1] if 'entries' in a else ''
            depts[a[0]] = (int(a[2]), int(a[4]), users)
    return ['DepartmentName=%s%s FShares=%d OTickets=%d'
            % (name, ' Users=%s' % users if users and users != 'NONE'
               else '', fs, ot)
            for name, (fs, ot, users) in sorted(depts.items())]


def policy_keys(sc):
    """sched_conf's ticket policies, as Fairshare=sharetree takes them"""
    if 'weight_tickets_functional' not in sc:
        return ''
    h = sc.get('policy_hierarchy', 'OFS')
    return (' WeightTicketsFunctional=%g WeightUser=%g WeightProject=%g'
            ' WeightDepartment=%g WeightJob=%g'
            ' MaxFunctionalJobsToSchedule=%d'
            ' ShareFunctionalShares=%s ShareOverrideTickets=%s'
            ' PolicyHierarchy=%s'
            % (float(sc['weight_tickets_functional']),
               float(sc['weight_user']), float(sc['weight_project']),
               float(sc.get('weight_department', 0.25)),
               float(sc['weight_job']),
               int(sc['max_functional_jobs_to_schedule']),
               'yes' if sc['share_functional_shares'].upper() == 'TRUE'
               else 'no',
               'yes' if sc['share_override_tickets'].upper() == 'TRUE'
               else 'no', h))


def config(capdir, nodes, extra_users):
    sc = parse_sge.sched_conf(capdir)
    lines, users = tree_conf(nodes)
    for u in extra_users:
        if u not in users:
            # a user with no node in the share tree: no share
            lines.append('UserName=%s Account=root Shares=0' % u)
            users[u] = 'root'
    until = int(open(os.path.join(capdir, 'time')).read())
    run = os.path.dirname(capdir.rstrip('/'))
    tree_accounts = set(l.split()[0].split('=')[1] for l in lines
                        if l.startswith('AccountName='))
    lines += project_conf(run, tree_accounts, until)
    lines = entity_keys(lines, model_policies.entities(run, until))
    lines += dept_conf(run, until)
    lics, rurg = resource_keys(parse_sge.consumables(capdir))
    text = [
        'NodeName=localhost CPUs=3 RealMemory=8G',
        # GE accepts PE jobs wider than all.q; Rota refuses a job wider
        # than every node: a drained node makes them acceptable
        'NodeName=wide CPUs=999 RealMemory=8G',
        'QueueName=all Default=yes Charge=no',
        # max_reservation 0: Grid Engine starts any job that fits, in
        # order; with no time limits Rota's backfill does the same
        'Sched=backfill',
    ] + lics + lines + [
        'Fairshare=sharetree Tickets=%g CompensationFactor=%g%s'
        % (float(sc['weight_tickets_share']),
           float(sc['compensation_factor']), policy_keys(sc)),
        'UsageDecay=exponential UsageHalfLife=%dh' % int(sc['halftime']),
        'Priority=sge SlotUrgency=100%s%s WeightWaitingTime=%g '
        'WeightDeadline=%g WeightUrgency=%g WeightTicket=%g '
        'WeightPriority=%g'
        % (pe_urgency_slots(capdir), rurg,
           float(sc['weight_waiting_time']),
           float(sc.get('weight_deadline', 3600000)),
           float(sc['weight_urgency']), float(sc['weight_ticket']),
           float(sc['weight_priority'])),
    ]
    return '\n'.join(text) + '\n', users


def pe_urgency_slots(capdir):
    """' UrgencySlots=X' from the mpi PE's urgency_slots as captured
    (pe_mpi.txt; runs before it had none: '')"""
    p = os.path.join(capdir, 'pe_mpi.txt')
    if not os.path.exists(p):
        return ''
    for line in open(p):
        f = line.split()
        if len(f) == 2 and f[0] == 'urgency_slots':
            return ' UrgencySlots=%s' % f[1]
    return ''


def events(run, caps, upto, delta, users, forced):
    """the event lines up to capture number 'upto', its pass 'delta' s
    before its time; 'forced': jobs start when Grid Engine started them
    (start ID) rather than when Rota's pass would (pass)"""
    acts = actions(run)
    info, reqs = {}, {}
    for c in caps:
        for j, d in qstat_j(c).items():
            info.setdefault(j, {}).update(d)
        reqs.update(parse_sge.hard_requests(c))
    cons = parse_sge.consumables(caps[upto])
    t0 = min(t for t, _, _ in acts)
    ev = []  # (time, seq, line)
    seq = 0
    running = set()
    starts = {}
    for j, d in info.items():
        if 'JAT_start_time' in d:
            starts[j] = int(d['JAT_start_time'])
    cap_seen = 0
    for t, verb, args in acts:
        seq += 1
        if verb == 'capture':
            cap_seen += 1
            if cap_seen > upto:  # what came after it is not replayed
                break
            continue
        if verb == 'qsub':
            j, user, rest = int(args[0]), args[1], args[2:]
            if j not in info:
                continue  # a usage job: its usage comes with share_mon
            slots, most = 1, 0
            if '-pe' in rest:
                # a fixed request (3) or a range (2-6)
                rng = rest[rest.index('-pe') + 2].split('-')
                slots = int(rng[0])
                most = int(rng[1]) if len(rng) > 1 else 0
            st = int(info[j].get('JB_submission_time', t))
            js = int(info[j].get('JB_jobshare', 0))
            dl = int(info[j].get('JB_deadline', 0))
            # a job with -P is charged to its project (a Rota account)
            acct = rest[rest.index('-P') + 1] if '-P' in rest \
                else users.get(user, 'root')
            # a range's per-slot licenses are not known before it
            # starts: Rota has none (no scenario has one)
            lic = licenses_of(reqs.get(j, []), slots, cons)
            ev.append((st, seq, 'submit %d %s %s %d%s%s%s%s%s' % (
                j, user, acct, slots,
                ' jobshare=%d' % js if js else '',
                ' dl=%d' % (dl - t0) if dl else '',
                ' max=%d' % most if most > slots else '',
                ' lic=%s' % lic if lic else '',
                ' hold' if '-h' in rest else '')))
        elif verb == 'qalter' and args[0] == '-p':
            ev.append((t, seq, 'nice %s %d' % (args[2], -int(args[1]))))
        elif verb == 'qalter' and args[0] == '-ot':
            ev.append((t, seq, 'oticket %s %s' % (args[2], args[1])))
        elif verb in ('qhold', 'qrls'):
            ev.append((t, seq, '%s %s' % ('hold' if verb == 'qhold'
                                          else 'release', args[0])))
        elif verb == 'qdel':
            for j in map(int, args):
                ev.append((t, seq, ('end %d' if j in starts and
                                    starts[j] <= t else 'cancel %d') % j))
    for j, st in sorted(starts.items()):
        # after the submissions of that second
        ev.append((st, 10 ** 9, 'start %d' % j if forced else 'pass'))
    cap_times = [int(open(os.path.join(c, 'time')).read()) for c in caps]
    for k in range(upto + 1):
        # the usage each capture saw, from then on (what the scheduler
        # saw between two captures is not known better)
        when = cap_times[k] - (delta if k == upto else 0)
        for n in parse_sge.share_mon(caps[k]):
            if n.get('user_name') in users:
                ev.append((when, 2 * 10 ** 9, 'usage %s %s %s' % (
                    n['user_name'], users[n['user_name']], n['usage'])))
        if k == upto:
            ev.append((when, 3 * 10 ** 9, 'capture %s'
                       % os.path.basename(caps[k])))
    ev.sort()
    lines = ['drain wide']
    last = None
    for t, seq, line in ev:
        # a pass after the capture's time stamp (delta < 0) sees what
        # was done up to the stamp, and the capture's usage
        if t > cap_times[upto] - max(delta, 0) and seq < 2 * 10 ** 9:
            continue
        if t != last:
            lines.append('at %d' % (t - t0))
            last = t
        lines.append(line)
    return '\n'.join(lines) + '\n'


def rota_capture(text):
    jobs, order, nodes = {}, [], []
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == 'job':
            d = {}
            for kv in f[1:]:
                k, v = kv.split('=', 1)
                d[k] = ([float(x) for x in v.split(',')] if ',' in v
                        else v)
            jobs[int(d['id'])] = d
        elif f[0] == 'order':
            order = [int(x) for x in f[1:]]
        elif f[0] == 'node':
            nodes.append(dict(kv.split('=', 1) for kv in f[1:]))
    return jobs, order, nodes


def rota_values(d):
    """Rota's figures in Grid Engine's names"""
    def term(name, i):
        return d[name][i] if name in d else 0.0
    return {
        'state': d['state'],
        'rrcontr': term('urgency.slots', 3) + term('urgency.queue', 3) +
        term('urgency.resources', 3),
        'wtcontr': term('urgency.waiting', 3),
        'dlcontr': term('urgency.deadline', 3),
        'nurg': term('urgency', 1),
        'npprior': term('priority', 1),
        'ntckts': term('tickets', 1),
        'tickets': float(d['dealt']),
        'otckt': term('tickets.override', 0),
        'ftckt': term('tickets.functional', 0),
        'stckt': term('tickets.share', 0),
        'prio': float(d['prio']),
        # qstat's slots: granted when running, else the urgency's
        'slots': (float(d['cores']) if d['state'] == 'R'
                  else term('urgency.slots', 0)),
    }


def ge_values(d, j_info):
    state = d.get('state', '')
    nurg = float(j_info.get('JB_nurg', d.get('JB_nurg', 0)))
    return {
        'state': state,
        'rrcontr': float(d.get('JB_rrcontr', 0)),
        'wtcontr': float(d.get('JB_wtcontr', 0)),
        'dlcontr': float(d.get('JB_dlcontr', 0)),
        'nurg': nurg,
        'npprior': float(d.get('JB_nppri', 0)),
        'ntckts': float(d.get('JAT_ntix', 0)),
        'tickets': float(d.get('tickets', 0)),
        'otckt': float(d.get('otickets', 0)),
        'ftckt': float(d.get('ftickets', 0)),
        'stckt': float(d.get('stickets', 0)),
        'prio': float(d.get('JAT_prio', 0)),
        'slots': float(d.get('slots', 0) or 0),
    }


STATES = {'r': 'R', 'qw': 'PD', 'hqw': 'HELD'}


def misfits(ge, ro):
    bad = []
    if STATES.get(ge['state']) != ro['state']:
        bad.append('state')
    if ge['state'] == 'hqw':
        # Grid Engine shows a held job 0 everywhere; Rota rates it 0
        if ro['prio'] != 0 or ro['tickets'] != 0:
            bad.append('prio')
        return bad
    for k, tol in TOL.items():
        if abs(ge[k] - ro[k]) > tol:
            bad.append(k)
    for k in ('tickets', 'otckt', 'ftckt', 'stckt'):
        if abs(ge[k] - ro[k]) > max(1.0, 0.005 * ge[k]):
            bad.append(k)
    if abs(ge['rrcontr'] - ro['rrcontr']) > 1e-9:
        bad.append('rrcontr')
    if ge['slots'] != ro['slots']:
        bad.append('slots')
    if abs(ge['wtcontr'] - ro['wtcontr']) > 0.5 + 1e-9:
        bad.append('wtcontr')
    # qstat prints it rounded too
    if abs(ge['dlcontr'] - ro['dlcontr']) > 0.5 + 1e-9:
        bad.append('dlcontr')
    return bad


def replay(oracle, plugins, conf, ev, work):
    cf = os.path.join(work, 'rota.conf')
    ef = os.path.join(work, 'events')
    open(cf, 'w').write(conf)
    open(ef, 'w').write(ev)
    p = subprocess.run([oracle, '--plugins', plugins, cf, ef],
                       capture_output=True, text=True)
    if p.returncode:
        sys.exit('rota-oracle: %s' % p.stderr.strip())
    return rota_capture(p.stdout)


def main():
    args = sys.argv[1:]
    keep = None
    if '--events' in args:
        i = args.index('--events')
        keep = args[i + 1]
        del args[i:i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    run, oracle, plugins = args
    caps = sorted(os.path.join(run, d) for d in os.listdir(run)
                  if os.path.isdir(os.path.join(run, d)) and d[0].isdigit())
    work = keep or os.path.join('/tmp', 'compare_sge.%d' % os.getpid())
    os.makedirs(work, exist_ok=True)
    all_users = set()
    for t, verb, a in actions(run):
        if verb == 'qsub':
            all_users.add(a[1])
    total_bad = 0
    orders_equal = 0
    summary = []
    for k, cap in enumerate(caps):
        name = os.path.basename(cap)
        conf, users = config(cap, parse_sge.share_mon(cap), all_users)
        ge, ge_order = ge_jobs(cap)
        jinfo = qstat_j(cap)
        # the history was made under the first capture's weights: under
        # others, jobs are started as Grid Engine started them
        forced = conf.split('Priority=')[1] != \
            config(caps[0], parse_sge.share_mon(caps[0]),
                   all_users)[0].split('Priority=')[1]
        best = None
        # qstat runs after the time stamp: the pass it shows may be a
        # second or two later (tried last: the earlier one wins a tie)
        for delta in (0, 1, 2, 3, 4, -1, -2):
            ev = events(run, caps, k, delta, users, forced)
            ro, order, nodes = replay(oracle, plugins, conf, ev, work)
            # nurg moves little with the second (every waiting time
            # moves alike): qstat's rounded wtcontr tells the second
            pairs = [(ge_values(ge[j], jinfo.get(j, {})),
                      rota_values(ro[j]))
                     for j in ge if j in ro and ge[j]['state'] != 'hqw']
            err = (sum(abs(g['wtcontr'] - r['wtcontr']) > 0.5 + 1e-9
                       for g, r in pairs),
                   max([abs(g['nurg'] - r['nurg']) for g, r in pairs]
                       or [0]))
            if best is None or err < best[0]:
                best = (err, delta, ro, order, ev)
        _, delta, ro, order, ev = best
        if keep:
            open(os.path.join(keep, name + '.events'), 'w').write(ev)
            open(os.path.join(keep, name + '.conf'), 'w').write(conf)
        print('== %s (Grid Engine\'s pass taken at %+d s%s)' % (
            name, -delta, '; jobs started as Grid Engine started them'
            if forced else ''))
        fmt = ('%5s %-9s %-5s %-5s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s'
               ' %9s %9s %17s %20s  %s')
        print(fmt % ('job', 'user', 'GE', 'Rota', 'nurg GE', 'Rota',
                     'npprio GE', 'Rota', 'ntckt GE', 'Rota', 'tckts GE',
                     'Rota', 'prio GE', 'Rota', 'wtc GE', 'Rota',
                     'o/f/s GE', 'Rota', 'differs'))
        worst = dict((f, 0.0) for f in ('nurg', 'npprior', 'ntckts',
                                         'prio'))
        worst_t = 0.0
        for j in sorted(ge):
            g = ge_values(ge[j], jinfo.get(j, {}))
            if j not in ro:
                print('%5d %-9s %-5s %-5s not in Rota' % (
                    j, ge[j].get('JB_owner', ''), g['state'], '-'))
                total_bad += 1
                continue
            r = rota_values(ro[j])
            bad = misfits(g, r)
            total_bad += len(bad)
            if g['state'] != 'hqw':
                for f in worst:
                    worst[f] = max(worst[f], abs(g[f] - r[f]))
                if g['tickets'] > 0:
                    worst_t = max(worst_t, abs(g['tickets'] - r['tickets'])
                                  / g['tickets'])
            print(fmt % (j, ge[j].get('JB_owner', ''), g['state'],
                         r['state'], '%.6f' % g['nurg'],
                         '%.6f' % r['nurg'], '%.5f' % g['npprior'],
                         '%.5f' % r['npprior'], '%.5f' % g['ntckts'],
                         '%.5f' % r['ntckts'], '%.0f' % g['tickets'],
                         '%.1f' % r['tickets'], '%.5f' % g['prio'],
                         '%.5f' % r['prio'], '%.0f' % g['wtcontr'],
                         '%.2f' % r['wtcontr'],
                         '%.0f/%.0f/%.0f' % (g['otckt'], g['ftckt'],
                                             g['stckt']),
                         '%.1f/%.1f/%.1f' % (r['otckt'], r['ftckt'],
                                             r['stckt']),
                         ','.join(bad) or '-'))
        same = ge_order == order
        orders_equal += same
        if not same:
            total_bad += 1
        print('order GE   %s' % ' '.join(map(str, ge_order)))
        print('order Rota %s  (%s)' % (' '.join(map(str, order)),
                                        'equal' if same else 'DIFFERENT'))
        print('largest differences: %s; tickets %.3f%%' % (
            ', '.join('%s %.2g' % kv for kv in worst.items()),
            100 * worst_t))
        print()
        summary.append((name, delta, worst, worst_t, same))
    print('summary: %d captures, order equal in %d; %d values out of '
          'tolerance' % (len(caps), orders_equal, total_bad))
    for name, delta, worst, wt, same in summary:
        print('  %-16s pass %+d s  %s  tickets %.3f%%  order %s' % (
            name, -delta, ' '.join('%s %.1e' % kv for kv in worst.items()),
            100 * wt, 'equal' if same else 'DIFFERENT'))
    return 0 if total_bad == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
