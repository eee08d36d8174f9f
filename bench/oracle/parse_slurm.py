#!/usr/bin/env python3
"""Print the captures of bench/oracle/slurm as tables.

usage: parse_slurm.py CAPTURE_DIR...

Per job (squeue, scontrol show job, sprio -l and -n): id, label, user,
account, partition, QOS, state, CPUs, submit and accrue times (seconds
after the run's start), Slurm's priority, then each factor sprio shows
as weighted value and normalized factor: age, fairshare, jobsize,
partition, qos, and nice.  Below it, the checks of FINDINGS-slurm.md's
rules, recomputed from the capture's inputs.  Then the association
tree as sshare -l -a printed it, with the rules' values beside it.

The module is also imported by compare_slurm.py (load()).
"""
import calendar
import math
import os
import re
import sys
import time

NICE_OFFSET = 0x80000000


def epoch(s):
    """scontrol's local (UTC, the harness sets TZ) time to Unix seconds"""
    if not s or s in ('None', 'Unknown', 'N/A'):
        return None
    return calendar.timegm(time.strptime(s, '%Y-%m-%dT%H:%M:%S'))


def read(capdir, name):
    p = os.path.join(capdir, name)
    return open(p).read() if os.path.exists(p) else ''


def slurm_conf(capdir):
    """key -> value of slurm.conf; partitions and the node separately"""
    conf, parts, nodes = {}, {}, {}
    for line in read(capdir, 'slurm.conf').splitlines():
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        kv = dict(f.split('=', 1) for f in line.split() if '=' in f)
        if 'PartitionName' in kv:
            parts[kv['PartitionName']] = kv
        elif 'NodeName' in kv:
            nodes[kv['NodeName']] = kv
        else:
            conf.update(kv)
    return conf, parts, nodes


def minutes(s):
    """Slurm's [days-]hh:mm:ss or minutes, in seconds"""
    d = 0
    if '-' in s:
        d, s = s.split('-', 1)
    f = [int(x) for x in s.split(':')]
    if len(f) == 1:
        return int(d) * 86400 + f[0] * 60
    while len(f) < 3:
        f.insert(0, 0)
    return int(d) * 86400 + f[0] * 3600 + f[1] * 60 + f[2]


def qos_prio(capdir):
    out = {'normal': 0}
    txt = read(capdir, 'qos.txt')
    for line in txt.splitlines():
        f = line.split('|')
        if len(f) >= 2 and f[1].strip():
            out[f[0]] = int(f[1])
    if len(out) == 1:       # captures made before qos.txt: the harness's
        out.update({'boost': 100, 'mid': 40})
    return out


def jobs(capdir):
    """job id -> scontrol show job's fields"""
    out = {}
    for line in read(capdir, 'jobs.txt').splitlines():
        d = {}
        for f in line.split():
            if '=' in f:
                k, v = f.split('=', 1)
                d.setdefault(k, v)
        if 'JobId' in d:
            out[int(d['JobId'])] = d
    return out


SPRIO = ['id', 'user', 'part', 'prio', 'prio_n', 'site', 'age_w', 'age',
         'fs_w', 'fs', 'js_w', 'js', 'part_w', 'part_n', 'qos_w', 'qos',
         'nice']


def sprio(capdir):
    out = {}
    for line in read(capdir, 'sprio.psv').splitlines():
        f = [x.strip() for x in line.split('|')]
        if len(f) != len(SPRIO) or not f[0].isdigit():
            continue
        d = dict(zip(SPRIO, f))
        for k in SPRIO[3:]:
            d[k] = float(d[k])
        out[int(d['id'])] = d
    return out


def shares(capdir):
    """sshare -l -a -P rows in order, with depth and parent index"""
    rows = []
    stack = []          # (depth, index) of the accounts above
    lines = read(capdir, 'sshare.psv').splitlines()
    if not lines:
        return rows
    head = lines[0].split('|')
    for line in lines[1:]:
        f = line.split('|')
        if len(f) < len(head):
            continue
        d = dict(zip(head, f))
        acct = d['Account']
        depth = len(acct) - len(acct.lstrip(' '))
        d['Account'] = acct.strip()
        d['depth'] = depth
        d['user'] = d['User'] != ''
        while stack and stack[-1][0] >= depth:
            stack.pop()
        d['parent'] = stack[-1][1] if stack else None
        rows.append(d)
        if not d['user']:
            stack.append((depth, len(rows) - 1))
    return rows


def assoc_mgr(capdir, field):
    """(account, user) -> UsageRaw (2 decimals) or Lft of scontrol show
    assoc_mgr"""
    out = {}
    key = None
    pat = {'usage': r'UsageRaw/Norm/Efctv=([0-9.]+)/',
           'lft': r'\bLft=(\d+)'}[field]
    for line in read(capdir, 'assoc_mgr.txt').splitlines():
        m = re.match(r'ClusterName=\S+ Account=(\S+) UserName=(\S*)', line)
        if m:
            key = (m.group(1), re.sub(r'\(\d+\)$', '', m.group(2)))
            continue
        m = re.search(pat, line)
        if m and key:
            out[key] = float(m.group(1))
    return out


def assoc_usage(capdir):
    return assoc_mgr(capdir, 'usage')


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------- fair tree
# Slurm 22.05's Fair Tree (fair_tree.c) as it is, from the rules found:
# LF = S / U among siblings, users first on equal LF (a stable sort:
# equals keep the order of their lft), depth-first ranking, fs = rank /
# user associations; tied accounts are NOT merged (its
# _count_tied_accounts() stops at the first following account), a tied
# account's first child starts tied.

def fair_tree(rows, usage, lft=None):
    """rows of shares(); usage per row index; lft per row index (the
    order of siblings in Slurm's lists, which the stable sort by LF
    keeps among equals) -> fs factor per user row, LF per row"""
    kids = {}
    for i, r in enumerate(rows):
        kids.setdefault(r['parent'], []).append(i)
    if lft:
        for p in kids:
            kids[p].sort(key=lambda i: lft.get(i, 0))
    raw = {i: (fnum(r['RawShares']) or 0) for i, r in enumerate(rows)}
    lf = {}

    def level(i):
        p = rows[i]['parent']
        sib = sum(raw[j] for j in kids[p])
        s = raw[i] / sib if sib else 0
        pu = usage[p]
        u = usage[i] / pu if pu else 0
        if s == 0:
            return 0.0
        return s / u if u else math.inf

    nusers = sum(1 for r in rows if r['user'])
    fs = {}
    st = {'rank': nusers, 'rnt': nusers}

    def walk(sibs, tied_in):
        for i in sibs:
            lf[i] = level(i)
        order = sorted(sibs, key=lambda i: (-lf[i], 0 if rows[i]['user'] else 1))
        prev = None
        for n, i in enumerate(order):
            tied = tied_in if n == 0 else (prev == lf[i])
            if rows[i]['user']:
                if not tied:
                    st['rank'] = st['rnt']
                fs[i] = st['rank'] / nusers
                st['rnt'] -= 1
            else:
                walk(kids.get(i, []), tied)
            prev = lf[i]

    root = kids[None][0]
    walk(kids.get(root, []), False)
    return fs, lf


def load(capdir):
    """everything a capture says, as one dict"""
    conf, parts, nodes = slurm_conf(capdir)
    t = dict(l.split() for l in read(capdir, 'time').splitlines() if l.strip())
    start_f = os.path.join(os.path.dirname(capdir.rstrip('/')), 'start')
    start = int(open(start_f).read().split()[1]) if os.path.exists(start_f) else 0
    return {
        'name': os.path.basename(capdir.rstrip('/')),
        'calc': int(t.get('calc', 0)), 'now': int(t.get('now', 0)),
        'start': start, 'conf': conf, 'parts': parts, 'nodes': nodes,
        'qos': qos_prio(capdir), 'jobs': jobs(capdir),
        'sprio': sprio(capdir), 'shares': shares(capdir),
        'usage': assoc_usage(capdir),
    }


def weights(conf):
    return {k: int(conf.get('PriorityWeight' + k, 0))
            for k in ('Age', 'Fairshare', 'JobSize', 'Partition', 'QOS')}


def expected(c, jid):
    """each normalized factor of pending job jid by FINDINGS-slurm.md"""
    j = c['jobs'][jid]
    conf = c['conf']
    max_age = minutes(conf.get('PriorityMaxAge', '7-0'))
    accrue = epoch(j.get('AccrueTime'))
    age = 0.0
    if accrue:
        age = min(max(c['calc'] - accrue, 0), max_age) / max_age
    ncpus = sum(int(n.get('CPUs', 1)) for n in c['nodes'].values())
    nnodes = len(c['nodes'])
    js = (int(j['NumNodes'].split('-')[0]) / nnodes +
          int(j['NumCPUs']) / ncpus) / 2
    pjf = {p: int(v.get('PriorityJobFactor', 1)) for p, v in c['parts'].items()}
    part = pjf[j['Partition']] / max(pjf.values())
    qmax = max(c['qos'].values())
    qos = c['qos'].get(j['QOS'], 0) / qmax if qmax else 0
    return {'age': age, 'js': js, 'part_n': part, 'qos': qos,
            'nice': int(j.get('Nice', 0))}


def label_of(c, jid):
    return c['jobs'][jid].get('JobName', '?')


def rel(c, t):
    return '-' if t is None else str(t - c['start'])


def print_capture(capdir):
    c = load(capdir)
    w = weights(c['conf'])
    print('== %s: factors computed at %d (start + %d s), captured at start + %d s'
          % (c['name'], c['calc'], c['calc'] - c['start'],
             c['now'] - c['start']))
    print('weights: age %(Age)d fairshare %(Fairshare)d jobsize %(JobSize)d '
          'partition %(Partition)d qos %(QOS)d' % w)
    print()
    hdr = ('%-4s %-4s %-7s %-8s %-8s %-6s %-7s %3s %5s %5s %6s | '
           '%5s %9s %5s %9s %4s %9s %5s %9s %4s %9s %4s | %6s'
           % ('id', 'name', 'user', 'account', 'part', 'qos', 'state', 'cpu',
              'subm', 'accr', 'prio', 'age', 'norm', 'fs', 'norm', 'js',
              'norm', 'part', 'norm', 'qos', 'norm', 'nice', 'prio*'))
    print(hdr)
    sp = c['sprio']
    order = sorted(c['jobs'], key=lambda i: (
        c['jobs'][i]['JobState'] != 'RUNNING',
        -int(c['jobs'][i]['Priority']), i))
    for i in order:
        j = c['jobs'][i]
        st = j['JobState']
        if st == 'PENDING' and j.get('Reason', '').startswith('JobHeld'):
            st = 'HELD'
        line = ('%-4d %-4s %-7s %-8s %-8s %-6s %-7s %3s %5s %5s %6s'
                % (i, j.get('JobName', '')[:4], j['UserId'].split('(')[0],
                   j['Account'], j['Partition'], j['QOS'], st, j['NumCPUs'],
                   rel(c, epoch(j['SubmitTime'])),
                   rel(c, epoch(j.get('AccrueTime'))), j['Priority']))
        if i in sp:
            s = sp[i]
            total = (s['age'] * w['Age'] + s['fs'] * w['Fairshare'] +
                     s['js'] * w['JobSize'] + s['part_n'] * w['Partition'] +
                     s['qos'] * w['QOS'] - s['nice'])
            line += (' | %5.0f %9.7f %5.0f %9.7f %4.0f %9.7f %5.0f %9.7f '
                     '%4.0f %9.7f %4.0f | %6d'
                     % (s['age_w'], s['age'], s['fs_w'], s['fs'], s['js_w'],
                        s['js'], s['part_w'], s['part_n'], s['qos_w'],
                        s['qos'], s['nice'], max(1, math.floor(total))))
        print(line)
    print()
    # checks
    bad = 0
    rows = c['shares']
    usage = {}
    for k, r in enumerate(rows):
        key = (r['Account'], r['User'])
        usage[k] = c['usage'].get(key, fnum(r['RawUsage']) or 0)
    lfts = assoc_mgr(capdir, 'lft')
    lft = {k: lfts.get((r['Account'], r['User']), 0)
           for k, r in enumerate(rows)}
    fs_model, lf_model = fair_tree(rows, usage, lft) if rows else ({}, {})
    fs_user = {(r['Account'], r['User']): fs_model.get(k)
               for k, r in enumerate(rows) if r['user']}
    for i in sorted(sp):
        e = expected(c, i)
        j = c['jobs'][i]
        e['fs'] = fs_user.get((j['Account'], j['UserId'].split('(')[0]))
        for k in ('age', 'fs', 'js', 'part_n', 'qos'):
            if e[k] is None or abs(sp[i][k] - e[k]) > 1e-6:
                print('  MISMATCH job %d %s: sprio %.7f, rule %s'
                      % (i, k, sp[i][k], e[k]))
                bad += 1
        if sp[i]['nice'] != e['nice']:
            print('  MISMATCH job %d nice: sprio %g, job %d'
                  % (i, sp[i]['nice'], e['nice']))
            bad += 1
        total = (sp[i]['age'] * w['Age'] + sp[i]['fs'] * w['Fairshare'] +
                 sp[i]['js'] * w['JobSize'] +
                 sp[i]['part_n'] * w['Partition'] +
                 sp[i]['qos'] * w['QOS'] - sp[i]['nice'])
        if abs(max(1, math.floor(total)) - int(j['Priority'])) > 1:
            print('  MISMATCH job %d priority: %s, floor(sum) %d'
                  % (i, j['Priority'], math.floor(total)))
            bad += 1
    print('checks: %d pending jobs rated, %d mismatches (age = min(calc - '
          'accrue, MaxAge) / MaxAge; jobsize = (nodes/%d + cpus/%d) / 2; '
          'partition, qos = value / largest; fairshare = the Fair Tree '
          'model; priority = floor(sum - nice))'
          % (len(sp), bad, len(c['nodes']),
             sum(int(n.get('CPUs', 1)) for n in c['nodes'].values())))
    print()
    # the tree
    print('%-18s %9s %9s %9s %10s %9s %9s %9s %9s | %9s %9s %9s %9s'
          % ('account/user', 'RawShare', 'NormShr', 'RawUsage', 'UsageRaw',
             'NormUsg', 'EffUsg', 'FairShr', 'LevelFS', 'NormShr*',
             'EffUsg*', 'LevelFS*', 'FairShr*'))
    kids = {}
    for k, r in enumerate(rows):
        kids.setdefault(r['parent'], []).append(k)
    tbad = 0
    for k, r in enumerate(rows):
        name = ' ' * r['depth'] + (r['User'] if r['user'] else r['Account'])
        p = r['parent']
        if p is None:
            ns = eu = lfs = fsm = None
        else:
            sib = sum(fnum(rows[x]['RawShares']) or 0 for x in kids[p])
            ns = (fnum(r['RawShares']) or 0) / sib if sib else 0
            eu = usage[k] / usage[p] if usage[p] else 0
            lfs = lf_model.get(k)
            fsm = fs_model.get(k)
        def f(v):
            if v is None:
                return '-'
            return 'inf' if v == math.inf else '%.6f' % v
        print('%-18s %9s %9s %9s %10.2f %9s %9s %9s %9s | %9s %9s %9s %9s'
              % (name, r['RawShares'] or '-', r['NormShares'],
                 r['RawUsage'], usage[k], r['NormUsage'] or '-',
                 r['EffectvUsage'], r['FairShare'] or '-',
                 r['LevelFS'] or '-', f(ns), f(eu), f(lfs), f(fsm)))
        if p is None:
            continue
        for col, model, tol in (('NormShares', ns, 1e-6),
                                ('EffectvUsage', eu, 1e-4),
                                ('LevelFS', lfs, 1e-3),
                                ('FairShare', fsm, 1e-6)):
            shown = r[col]
            if col == 'FairShare' and not r['user']:
                if shown != '':
                    print('  MISMATCH %s FairShare: account line shows %s'
                          % (name.strip(), shown))
                    tbad += 1
                continue
            if shown == 'inf' or model == math.inf:
                if not (shown == 'inf' and model == math.inf):
                    print('  MISMATCH %s %s: %s, rule %s'
                          % (name.strip(), col, shown, model))
                    tbad += 1
                continue
            if model is None or fnum(shown) is None or \
               abs(fnum(shown) - model) > tol * max(1, abs(model)):
                print('  MISMATCH %s %s: %s, rule %s'
                      % (name.strip(), col, shown, model))
                tbad += 1
    print('checks: %d associations, %d mismatches (NormShares = shares / '
          'siblings\' shares; EffectvUsage = usage / parent\'s usage; LevelFS '
          '= NormShares / EffectvUsage; FairShare = rank / %d user '
          'associations, blank on account lines); * = the rule\'s value, '
          'UsageRaw from scontrol show assoc_mgr'
          % (len(rows), tbad, sum(1 for r in rows if r['user'])))
    print()
    return bad + tbad


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    bad = 0
    for d in argv[1:]:
        if os.path.isdir(d) and os.path.exists(os.path.join(d, 'time')):
            bad += print_capture(d)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
