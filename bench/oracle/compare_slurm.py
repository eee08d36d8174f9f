#!/usr/bin/env python3
"""Replay a bench/oracle/slurm run into Rota's core and compare, per job
and factor, Slurm's numbers with Rota's multifactor and fairtree plugins.

usage: compare_slurm.py RUN_DIR ROTA_ORACLE PLUGIN_DIR [--events DIR]

RUN_DIR is a run of bench/oracle/slurm (its start, actions.txt and
captures).  ROTA_ORACLE is the bench/oracle/rota-oracle program of a
build, PLUGIN_DIR that build's _plugins.  The run becomes one rota.conf
(the same weights, MaxAge, partitions as queues with their
PriorityJobFactor as Priority, QOS priorities, the association tree from
sshare with its raw shares, the 8-CPU node) and one EVENTS file: the jobs
at Slurm's submit times (the usage-burning jobs left out), holds,
releases, nice changes and cancellations at the times the harness made
them, a pass when Slurm started a job (right after its submission when it
started within a second of it), and per capture, at the time Slurm's decay thread
computed the factors, every user association's usage as Slurm's
association manager held it, then the capture.  --events DIR keeps both
files there (default: a scratch folder).

Printed per capture: per pending job not held each factor, normalized,
Slurm's (sprio -n) beside Rota's and the difference; Slurm's priority
(an integer: Slurm truncates the sum) beside Rota's; the states of all
jobs; the order of the pending jobs (Slurm's by priority, then submit
time and id; Rota's dispatch order); and per association each sshare
column beside the tree node's field.  Tolerance 1e-4 for every
normalized figure; a priority agrees when Rota's, truncated, is Slurm's.
Exit status 0 when everything agrees.
"""
import math
import os
import subprocess
import sys
import tempfile

import parse_slurm

TOL = 1e-4
FACTORS = [  # sprio's normalized column, Rota's term
    ('age', 'age'), ('fs', 'fairshare'), ('js', 'jobsize'),
    ('part_n', 'queue'), ('qos', 'qos')]


def actions(run):
    out = []
    for n, line in enumerate(open(os.path.join(run, 'actions.txt'))):
        f = line.split()
        if len(f) >= 3:
            out.append((int(f[0]), n, f[1], f[2:]))
    return out


def captures(run):
    return [parse_slurm.load(os.path.join(run, d))
            for d in sorted(os.listdir(run))
            if os.path.isdir(os.path.join(run, d)) and d[0].isdigit()]


def config(c):
    """rota.conf for the run, from its first capture"""
    conf = c['conf']
    w = parse_slurm.weights(conf)
    max_age = parse_slurm.minutes(conf.get('PriorityMaxAge', '7-0'))
    hl = parse_slurm.minutes(conf.get('PriorityDecayHalfLife', '7-0'))
    lines = ['# rota.conf of bench/oracle/slurm\'s scenario, written by '
             'compare_slurm.py']
    for name, n in c['nodes'].items():
        lines.append('NodeName=%s CPUs=%s RealMemory=1G'
                     % (name, n.get('CPUs', 1)))
    for name, p in c['parts'].items():
        lines.append('QueueName=%s Nodes=ALL%s Priority=%s' % (
            name, ' Default=yes' if p.get('Default', '').upper() == 'YES'
            else '', p.get('PriorityJobFactor', 1)))
    for q, pr in sorted(c['qos'].items()):
        if q != 'normal' or pr:
            lines.append('QOSName=%s Priority=%d' % (q, pr))
    lines += [
        'Priority=multifactor WeightAge=%d WeightFairshare=%d '
        'WeightJobSize=%d WeightQueue=%d WeightQOS=%d MaxAge=%ds'
        % (w['Age'], w['Fairshare'], w['JobSize'], w['Partition'],
           w['QOS'], max_age),
        'Fairshare=fairtree',
        'UsageDecay=exponential UsageHalfLife=%ds' % hl,
        # Slurm's main loop: a job that does not fit keeps its
        # partition's nodes from every later job of the pass
        'SchedulerHoldNodes=yes',
    ]
    rows = c['shares']
    for r in rows:
        if r['parent'] is None:
            continue
        parent = rows[r['parent']]['Account']
        if r['user']:
            lines.append('UserName=%s Account=%s Shares=%s'
                         % (r['User'], r['Account'], r['RawShares']))
        else:
            lines.append('AccountName=%s%s Shares=%s' % (
                r['Account'], '' if parent == 'root'
                else ' Parent=%s' % parent, r['RawShares']))
    return '\n'.join(lines) + '\n'


def events(run, caps):
    """the EVENTS file of the run: every capture in time order"""
    start = caps[0]['start']
    jobs = {}
    for c in caps:
        for i, j in c['jobs'].items():
            jobs.setdefault(i, {}).update(j)
    started = {}
    for c in caps:
        for i, j in c['jobs'].items():
            if j['JobState'] == 'RUNNING':
                started[i] = parse_slurm.epoch(j['StartTime'])

    ev = []  # (time, order, line)
    label = {}
    acts = actions(run)
    # each capture's place among the actions: its line in actions.txt,
    # else (older runs) before the first action not earlier than it
    place = {args[0]: n for t, n, verb, args in acts if verb == 'capture'}
    for c in caps:
        if c['name'] not in place:
            place[c['name']] = min([n for t, n, v, a in acts
                                    if t >= c['calc']] + [10 ** 6]) - 0.5
    for t, n, verb, args in acts:
        if verb == 'capture':
            continue
        if verb == 'job':
            lab, i = args[0], int(args[1])
            label[lab] = i
            if lab.startswith('B'):
                continue    # usage burners: their usage comes as usage
            user, acct, part, qos, cpus = args[2:7]
            rest = args[7:]
            j = jobs.get(i, {})
            sub = parse_slurm.epoch(j.get('SubmitTime')) or t
            extra = ''
            for r in rest:
                if r.startswith('--nice='):
                    extra += ' nice=%s' % r.split('=', 1)[1]
                elif r == '-H':
                    extra += ' hold'
            ev.append((sub, n, 'submit %d %s %s %s queue=%s qos=%s '
                       'time=3600%s' % (i, user, acct, cpus, part, qos,
                                        extra)))
            if started.get(i) is not None and started[i] - sub <= 1:
                # Slurm started it as it came (its scheduler runs on a
                # submission: the same or the next second), before the
                # next submission
                ev.append((sub, n + 0.5, 'pass'))
        else:
            lab = args[0]
            if lab.startswith('B'):
                continue
            i = label[lab]
            if verb == 'release':
                # Slurm makes a released job eligible at its next pass
                # (AccrueTime), a second or two later; Rota at once, its
                # pass running on the release: release it then
                acc = parse_slurm.epoch(jobs.get(i, {}).get('AccrueTime'))
                ev.append((acc if acc and t <= acc <= t + 10 else t, n,
                           'release %d' % i))
            elif verb == 'hold':
                ev.append((t, n, 'hold %d' % i))
            elif verb == 'nice':
                ev.append((t, n, 'nice %d %s' % (i, args[2])))
            elif verb == 'cancel':
                # a running job's cores come back at once with end
                # (cancel would wait for its node to say it is gone)
                ran = started.get(i) is not None and started[i] <= t
                ev.append((t, n, '%s %d' % ('end' if ran else 'cancel', i)))
    subs = {i: parse_slurm.epoch(j.get('SubmitTime')) for i, j in jobs.items()}
    for i, st in started.items():
        if st is not None and st - subs.get(i, st) > 1:
            ev.append((st, 10 ** 6, 'pass'))
    for c in caps:
        for r in c['shares']:
            if r['user']:
                u = c['usage'].get((r['Account'], r['User']),
                                   parse_slurm.fnum(r['RawUsage']) or 0)
                ev.append((c['calc'], place[c['name']] - 0.25,
                           'usage %s %s %.2f' % (r['User'], r['Account'], u)))
        ev.append((c['calc'], place[c['name']], 'capture %s' % c['name']))
    ev.sort()
    lines = ['# events of %s, written by compare_slurm.py' % run]
    last = None
    for t, _, line in ev:
        if t != last:
            lines.append('at %d' % (t - start))
            last = t
        lines.append(line)
    return '\n'.join(lines) + '\n'


def rota_output(text):
    """capture name -> (jobs, order, nodes)"""
    out, cur = {}, None
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == 'capture':
            cur = f[1]
            out[cur] = ({}, [], [])
        elif f[0] == 'job':
            d = {}
            for kv in f[1:]:
                k, v = kv.split('=', 1)
                d[k] = ([float(x) for x in v.split(',')] if ',' in v
                        else v)
            out[cur][0][int(d['id'])] = d
        elif f[0] == 'order':
            out[cur][1].extend(int(x) for x in f[1:])
        elif f[0] == 'node':
            out[cur][2].append(dict(kv.split('=', 1) for kv in f[1:]))
    return out


def slurm_state(j):
    if j['JobState'] == 'RUNNING':
        return 'R'
    if j['JobState'] == 'PENDING':
        return 'HELD' if j.get('Reason', '').startswith('JobHeld') else 'PD'
    return None


def fmt(v):
    if v is None:
        return '-'
    if isinstance(v, float) and math.isinf(v):
        return 'inf'
    if isinstance(v, float) and math.isnan(v):
        return 'nan'
    return '%.7f' % v


def close(a, b, tol=TOL):
    if a is None or b is None:
        return a is None and b is None
    if math.isinf(a) or math.isinf(b):
        return a == b
    if math.isnan(a) or math.isnan(b):
        return False
    return abs(a - b) <= tol


def compare(c, ro):
    """print one capture's comparison; the number of differences"""
    rjobs, rorder, rnodes = ro
    bad = 0
    print('== %s: Slurm\'s factors at start + %d s, Rota\'s capture at '
          'the same time' % (c['name'], c['calc'] - c['start']))
    # states
    states = []
    for i in sorted(c['jobs']):
        s = slurm_state(c['jobs'][i])
        if s is None:
            continue
        r = rjobs.get(i, {}).get('state', '-')
        if s != r:
            states.append('%d %s/%s' % (i, s, r))
    print('states (Slurm/Rota): %s' % ('all equal' if not states
                                       else 'DIFFER: ' + ', '.join(states)))
    bad += len(states)
    print()
    print('%-4s %-4s %-7s %-8s | %6s %10s %3s | %s'
          % ('id', 'name', 'user', 'account', 'slurm', 'rota', 'ok',
             '   '.join('%-7s slurm / rota / diff' % r for _, r in FACTORS)
             + '   nice'))
    sp = c['sprio']
    diffs = []
    for i in sorted(sp, key=lambda i: (-int(c['jobs'][i]['Priority']), i)):
        j = c['jobs'][i]
        r = rjobs.get(i)
        if r is None:
            print('%-4d not in Rota\'s capture' % i)
            bad += 1
            continue
        if r['state'] != 'PD':
            # counted with the states above: Rota rates no such job
            print('%-4d %-4s %-7s %-8s | %6s %10s %3s | %s in Rota: not '
                  'compared' % (i, j['JobName'], j['UserId'].split('(')[0],
                                j['Account'], j['Priority'], '-', '-',
                                r['state']))
            continue
        sprio = int(j['Priority'])
        rprio = float(r['prio'])
        ok = max(1, math.floor(rprio + 1e-9)) == sprio
        cells = []
        for sk, rk in FACTORS:
            sv = sp[i][sk]
            rv = r[rk][1] if rk in r else 0.0
            d = rv - sv
            cells.append('%-7s %.7f %.7f %+.1e%s' % (
                rk, sv, rv, d, '' if abs(d) <= TOL else '*'))
            if abs(d) > TOL:
                diffs.append('job %d (%s %s) %s: Slurm %.7f, Rota %.7f, '
                             'diff %+.7f' % (i, j['JobName'],
                                             j['UserId'].split('(')[0], rk,
                                             sv, rv, d))
        rnice = r['nice'][0] if 'nice' in r else 0
        cells.append('%g/%g%s' % (sp[i]['nice'], rnice,
                                  '' if sp[i]['nice'] == rnice else '*'))
        if sp[i]['nice'] != rnice:
            diffs.append('job %d nice: Slurm %g, Rota %g'
                         % (i, sp[i]['nice'], rnice))
        if not ok:
            diffs.append('job %d (%s) priority: Slurm %d, Rota %.4f '
                         '(diff %+.4f)' % (i, j['JobName'], sprio, rprio,
                                           rprio - sprio))
        print('%-4d %-4s %-7s %-8s | %6d %10.3f %3s | %s'
              % (i, j['JobName'], j['UserId'].split('(')[0], j['Account'],
                 sprio, rprio, 'yes' if ok else 'NO', ' | '.join(cells)))
    bad += len(diffs)
    # order
    pend = [i for i in c['jobs'] if slurm_state(c['jobs'][i]) == 'PD']
    sorder = sorted(pend, key=lambda i: (
        -int(c['jobs'][i]['Priority']),
        parse_slurm.epoch(c['jobs'][i]['SubmitTime']), i))
    rorder = [i for i in rorder if i in set(pend)] + \
        [i for i in rorder if i not in set(pend)]
    same = sorder == rorder
    print()
    print('order Slurm: %s' % ' '.join(map(str, sorder)))
    print('order Rota:  %s   %s' % (' '.join(map(str, rorder)),
                                    'EQUAL' if same else 'DIFFERENT'))
    if not same:
        bad += 1
        diffs.append('order differs')
    # the tree
    print()
    cols = [('RawShares', 'shares'), ('NormShares', 'shares_level'),
            ('UsageRaw', 'usage'), ('NormUsage', 'usage_norm'),
            ('EffectvUsage', 'usage_level'), ('FairShare', 'factor'),
            ('LevelFS', 'level_fs')]
    print('%-16s %s' % ('association', '  '.join(
        '%-12s slurm / rota' % s for s, _ in cols)))
    byname = {}
    accounts = {}
    level = {}
    for n in rnodes:
        key = (n['account'], n['name'] if n['user'] == '1' else '')
        byname[key] = n
        if n['user'] != '1':
            accounts[n['name']] = n
        level[n['parent']] = level.get(n['parent'], 0.0) + float(n['shares'])
    # what rota share shows in sshare's columns (rpc_share.c): the share
    # among siblings and the usage over the parent's; an account's
    # FairShare blank under Fair-Tree, as in sshare
    for n in rnodes:
        up = accounts.get(n['parent'])
        lv = level.get(n['parent'], 0.0)
        n['shares_level'] = (float(n['shares']) / lv if up and lv > 0
                             else 1.0 if not up else 0.0)
        pu = float(up['usage']) if up else 0.0
        n['usage_level'] = (float(n['usage']) / pu if up and pu > 0
                            else 1.0 if not up else 0.0)
    tdiffs = []
    for k, r in enumerate(c['shares']):
        key = (r['Account'], r['User'])
        n = byname.get(key)
        name = ' ' * r['depth'] + (r['User'] or r['Account'])
        if n is None:
            print('%-16s not in Rota\'s tree' % name)
            tdiffs.append('%s: not in Rota\'s tree' % name.strip())
            continue
        cells = []
        for scol, rcol in cols:
            if scol == 'UsageRaw':
                sv = c['usage'].get(key, parse_slurm.fnum(r['RawUsage']))
            else:
                sv = parse_slurm.fnum(r[scol]) if r[scol] != '' else None
            rv = float(n[rcol])
            if r['parent'] is None and scol in ('RawShares', 'NormShares',
                                                'FairShare', 'LevelFS'):
                sv = None   # the root line shows none of these
            if scol == 'FairShare' and not r['User'] and sv is None:
                rv = None   # blank for an account, in both
            tol = 0.011 if scol == 'UsageRaw' else (
                1e-3 if scol == 'LevelFS' else TOL)
            if scol == 'LevelFS' and sv is not None and not math.isinf(sv):
                tol = 1e-3 * max(1.0, abs(sv))
            agree = sv is None or close(sv, rv, tol)
            cells.append('%-12s %s / %s%s' % (scol, fmt(sv), fmt(rv),
                                              '' if agree else '*'))
            if not agree:
                tdiffs.append('%s %s: Slurm %s, Rota %s%s' % (
                    ('%s@%s' % (r['User'], r['Account'])) if r['user']
                    else r['Account'], scol, fmt(sv), fmt(rv),
                    '' if sv is None or math.isinf(sv) or math.isinf(rv)
                    else ' (diff %+.6f)' % (rv - sv)))
        print('%-16s %s' % (name, '  '.join(cells)))
    bad += len(tdiffs)
    print()
    print('differences beyond %g: %d' % (TOL, len(diffs) + len(tdiffs)))
    for d in diffs + tdiffs:
        print('  ' + d)
    print()
    return bad


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
    caps = captures(run)
    if not caps:
        sys.exit('%s: no captures' % run)
    work = keep or tempfile.mkdtemp(prefix='compare_slurm.')
    os.makedirs(work, exist_ok=True)
    cf = os.path.join(work, 'rota.conf')
    ef = os.path.join(work, 'events')
    open(cf, 'w').write(config(caps[0]))
    open(ef, 'w').write(events(run, caps))
    p = subprocess.run([oracle, '--plugins', plugins, cf, ef],
                       capture_output=True, text=True)
    if p.returncode:
        sys.exit('rota-oracle: %s' % p.stderr.strip())
    if keep:
        open(os.path.join(work, 'rota-oracle.out'), 'w').write(p.stdout)
    ro = rota_output(p.stdout)
    bad = 0
    for c in caps:
        if c['name'] not in ro:
            print('== %s: no capture from rota-oracle' % c['name'])
            bad += 1
            continue
        bad += compare(c, ro[c['name']])
    print('total differences: %d' % bad)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
