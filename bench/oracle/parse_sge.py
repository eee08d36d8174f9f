#!/usr/bin/env python3
"""Print one capture of bench/oracle/sge as tables.

usage: parse_sge.py CAPTURE_DIR...

Per job (running, pending and held, from qstat -u '*' -s a -urg/-pri/-ext
-xml): id, user, state, slots, urg, rrcontr, wtcontr, dlcontr, nurg,
npprior, ntckts, tickets (stckt), prio, and the POSIX priority; with
complexes.txt (the consumable scenario) rrcontr is checked against the
hard requests (qstat -j) and the complexes' urgency (FINDINGS.md rule
14).
Then the share tree as sge_share_mon printed it (shares, level and total
shares, long- and short-term target shares, actual share, usage), and the
checks of FINDINGS.md's rules recomputed from the captured numbers.
"""
import os
import sys
import xml.etree.ElementTree as ET


def jobs_of(path):
    """job number -> dict of the XML fields of every job_list element"""
    out = {}
    for jl in ET.parse(path).getroot().iter('job_list'):
        d = {c.tag: (c.text or '') for c in jl}
        d['_state_attr'] = jl.get('state', '')
        out.setdefault(d['JB_job_number'], {}).update(d)
    return out


def num(d, k, default=0.0):
    try:
        return float(d.get(k, default))
    except ValueError:
        return default


def sched_conf(capdir):
    conf = {}
    p = os.path.join(capdir, 'sched_conf.txt')
    if os.path.exists(p):
        for line in open(p):
            f = line.split()
            if len(f) >= 2:
                conf[f[0]] = f[1]
    return conf


def share_mon(capdir):
    nodes = []
    p = os.path.join(capdir, 'share_mon.txt')
    if not os.path.exists(p):
        return nodes
    for line in open(p):
        d = {}
        for field in line.rstrip('\n').split('\t'):
            if '=' in field:
                k, v = field.split('=', 1)
                d[k] = v
        if 'node_name' in d:
            nodes.append(d)
    return nodes


# ---------------------------------------------------------------- rule 5
# A model of Son of Grid Engine 8.1.9's share-tree tickets (FINDINGS.md,
# rule 5), written from the rules found, to check them against every
# capture: tree and usage from share_mon.txt, jobs from qstat.

SGE_MIN_USAGE = 1.0


class Node:
    def __init__(self, name, shares, usage):
        self.name, self.shares, self.usage = name, shares, usage
        self.children = []
        self.jobs = []          # (job id, dict) of the user's jobs


def build_tree(nodes):
    by_path = {}
    root = None
    for n in nodes:
        path = n['node_name']
        node = Node(path, float(n.get('shares', 0)), float(n.get('usage', 0)))
        by_path[path] = node
        if path == '/':
            root = node
        else:
            parent = path.rsplit('/', 1)[0] or '/'
            by_path[parent].children.append(node)
    return root, by_path


def count(node, pred):
    return (sum(1 for _, d in node.jobs if pred(d)) +
            sum(count(c, pred) for c in node.children))


def targets(node, pred, cf, stt=None):
    """stt (among active siblings) and ostt for node's subtree"""
    if stt is None:
        stt = {node: (1.0, 1.0, 1.0)}   # node -> (stt, ostt, oltt)
    act = [c for c in node.children if count(c, pred) > 0]
    tot = sum(c.shares for c in act)
    _, postt, poltt = stt[node]
    shr, oltt = {}, {}
    for c in act:
        oltt[c] = poltt * (c.shares / tot if tot else 0)
        shr[c] = (c.shares ** 2 / max(c.usage, SGE_MIN_USAGE * oltt[c])
                  if oltt[c] > 0 else 0)
    s = sum(shr.values())
    for c in act:
        st = shr[c] / s if s else 0
        stt[c] = (st, postt * st, oltt[c])
    if cf:
        comp, s = False, 0
        for c in act:
            ostt = stt[c][1]
            if ostt > cf * oltt[c]:
                shr[c] = c.shares ** 2 / (max(c.usage, SGE_MIN_USAGE * oltt[c]) *
                                          (ostt / (cf * oltt[c])))
                comp = True
            s += shr[c]
        if comp:
            for c in act:
                st = shr[c] / s if s else 0
                stt[c] = (st, postt * st, oltt[c])
    for c in act:
        targets(c, pred, cf, stt)
    return stt


def pe_min(d):
    return max(1, int(float(d.get('slots', 1) or 1)))


def sort_job_nodes(root, node, stt, total):
    """sge_sort_job_nodes(): [(job, d, queued, sort, shr)]"""
    if root is node:
        act = [c for c in node.children if count(c, lambda d: True) > 0]
        if not node.jobs and len(act) == 1:
            return sort_job_nodes(act[0], act[0], stt, total)
    lst = [[j, d, 'r' not in d['state'], 0.0, 0.0] for j, d in node.jobs]
    for c in node.children:
        if count(c, lambda d: True) > 0:
            lst += sort_job_nodes(root, c, stt, total)
    if root is not node or node.jobs:
        lst.sort(key=lambda e: (e[2], -e[3], e[0]))
        k = 1
        for e in lst:
            e[4] = stt[node][0] / k
            e[3] = e[4] * total
            k += pe_min(e[1])
    return lst


def model_tickets(jobs, nodes, conf):
    """job id -> share-tree tickets the model gives"""
    total = float(conf.get('weight_tickets_share', 0))
    cf = float(conf.get('compensation_factor', 0))
    root, by_path = build_tree(nodes)
    if root is None or total <= 0:
        return {}
    users = {}
    for path, n in by_path.items():
        if n is not root and not n.children:
            users[path.rsplit('/', 1)[1]] = n
    out = {}
    for j, d in jobs.items():
        if 'h' in d.get('state', ''):
            continue
        n = users.get(d.get('JB_owner'))
        if n is None:
            out[j] = 0.0
        else:
            n.jobs.append((j, d))
    # running pass: running jobs only
    running = lambda d: 'r' in d['state']
    stt = targets(root, running, cf)
    for n in users.values():
        nr = sum(1 for _, d in n.jobs if running(d))
        for j, d in n.jobs:
            if running(d):
                out[j] = total * stt[n][1] / nr
    # pending pass: running and pending jobs
    stt = targets(root, lambda d: True, cf)
    for j, d, queued, _, shr in sort_job_nodes(root, root, stt, total):
        if queued:
            out[j] = total * shr
    return out


def hard_requests(capdir):
    """job -> [(name, value)]: its hard resource_list (qstat -j)"""
    p = os.path.join(capdir, 'qstat-j.xml')
    out = {}
    if not os.path.exists(p):
        return out
    for e in ET.parse(p).getroot().iter('element'):
        num = e.find('JB_job_number')
        hard = e.find('JB_hard_resource_list')
        if num is None or hard is None:
            continue
        out[int(num.text)] = [
            (r.find('CE_name').text, float(r.find('CE_doubleval').text))
            for r in hard if r.find('CE_name') is not None]
    return out


def complexes(capdir):
    """name -> (type, consumable column, urgency) of every complex
    (complexes.txt: qconf -sc; {} in runs before it was captured)"""
    cx = {}
    p = os.path.join(capdir, 'complexes.txt')
    if os.path.exists(p):
        for line in open(p):
            f = line.split()
            if len(f) == 8 and not f[0].startswith('#'):
                cx[f[0]] = (f[2], f[5], float(f[7]))
    return cx


def consumables(capdir):
    """name -> (consumable column, urgency, count) of the complexes the
    global host counts (complexes.txt, global_host.txt; none before they were
    captured), in the global host's order"""
    cx, out = complexes(capdir), {}
    if not cx:
        return out
    for line in open(os.path.join(capdir, 'global_host.txt')):
        f = line.split()
        if len(f) == 2 and f[0] == 'complex_values' and f[1] != 'NONE':
            for kv in f[1].split(','):
                name, count = kv.split('=')
                if name in cx and cx[name][1] in ('YES', 'JOB'):
                    out[name] = (cx[name][1], cx[name][2], int(count))
    return out


def rrcontr(capdir, job, slots):
    """Grid Engine's rrcontr (sge_urgency.c, FINDINGS.md rule 14): the
    slots' urgency x slots, plus each hard request's value x its
    complex's urgency x slots (a string's urgency once), whatever the
    complex's consumable column; None without complexes.txt"""
    cx = complexes(capdir)
    if not cx:
        return None
    r = cx['slots'][2] * slots
    for name, value in hard_requests(capdir).get(job, []):
        if name in cx:
            numeric = cx[name][0] in ('INT', 'TIME', 'MEMORY', 'BOOL',
                                      'DOUBLE')
            r += value * cx[name][2] * slots if numeric else cx[name][2]
    return r


def show(capdir):
    jobs = {}
    for kind in ('urg', 'pri', 'ext'):
        p = os.path.join(capdir, 'qstat-%s.xml' % kind)
        for j, d in jobs_of(p).items():
            jobs.setdefault(j, {}).update(d)
    # The XML has no urg field: it is the sum of the three contributions
    # (each printed rounded to an integer, as is the text form's urg).
    for d in jobs.values():
        if 'JB_urg' not in d and 'JB_rrcontr' in d:
            d['JB_urg'] = '%g' % (num(d, 'JB_rrcontr') + num(d, 'JB_wtcontr') +
                                  num(d, 'JB_dlcontr'))
    conf = sched_conf(capdir)
    wu = float(conf.get('weight_urgency', 0))
    wt = float(conf.get('weight_ticket', 0))
    wp = float(conf.get('weight_priority', 0))
    print('== %s  (weight_urgency %g, weight_ticket %g, weight_priority %g,'
          ' weight_waiting_time %s)' % (os.path.basename(capdir.rstrip('/')),
                                        wu, wt, wp,
                                        conf.get('weight_waiting_time')))
    hdr = ('job', 'user', 'state', 'slots', 'urg', 'rrcontr', 'wtcontr',
           'dlcontr', 'nurg', 'npprior', 'ntckts', 'stckt', 'prio', 'p',
           'prio*')
    fmt = '%5s %-9s %-5s %5s %6s %7s %7s %7s %7s %7s %7s %6s %7s %5s %7s'
    print(fmt % hdr)
    rows = []
    for j, d in jobs.items():
        rows.append((d.get('state', ''), -num(d, 'JAT_prio'), int(j), d))
    rows.sort(key=lambda r: (not r[0].startswith('r'), r[1], r[2]))
    active = []
    for _, _, j, d in rows:
        # prio* is the priority recomputed from the shown factors
        recomputed = (wu * num(d, 'JB_nurg') + wt * num(d, 'JAT_ntix') +
                      wp * num(d, 'JB_nppri'))
        print(fmt % (j, d.get('JB_owner', ''), d.get('state', ''),
                     d.get('slots', '?'), d.get('JB_urg', '?'),
                     d.get('JB_rrcontr', '?'), d.get('JB_wtcontr', '?'),
                     d.get('JB_dlcontr', '?'), d.get('JB_nurg', '?'),
                     d.get('JB_nppri', '?'), d.get('JAT_ntix', '?'),
                     d.get('stickets', '?'), d.get('JAT_prio', '?'),
                     d.get('JB_priority', '?'), '%.5f' % recomputed))
        if 'h' not in d.get('state', ''):
            active.append((j, d))
    print()
    if active:
        urgs = [num(d, 'JB_urg') for _, d in active]
        tix = [num(d, 'tickets') for _, d in active]
        lo, hi = min(urgs), max(urgs)
        print('checks over the %d not-held jobs (pending and running):'
              % len(active))
        print('  urg min %g max %g; nurg = (urg - min) / (max - min)'
              ' (0.5 when max == min)' % (lo, hi))
        print('  largest ticket count %g; ntckts = tickets / that' % max(tix))
        bad = []
        for j, d in active:
            n = 0.5 if hi - lo < 1e-9 else (num(d, 'JB_urg') - lo) / (hi - lo)
            t = 0.5 if max(tix) <= 0 else num(d, 'tickets') / max(tix)
            pp = (num(d, 'JB_priority') + 1024) / 2048
            # a running job shows its granted slots; all here are fixed
            rr = rrcontr(capdir, j, num(d, 'slots', 1))
            if rr is not None and abs(rr - num(d, 'JB_rrcontr')) > 1e-6:
                bad.append('%d: rrcontr %g/%s' % (j, rr,
                                                  d.get('JB_rrcontr')))
            # qstat rounds urg to an integer and the others to 5 digits
            if (abs(n - num(d, 'JB_nurg')) > 0.03 or
                    abs(t - num(d, 'JAT_ntix')) > 0.001 or
                    abs(pp - num(d, 'JB_nppri')) > 0.00001):
                bad.append('%d: nurg %.5f/%s ntckts %.5f/%s npprior %.5f/%s'
                           % (j, n, d.get('JB_nurg'), t, d.get('JAT_ntix'),
                              pp, d.get('JB_nppri')))
        if complexes(capdir):
            print('  rrcontr = slots x its urgency + each hard request x'
                  ' its urgency x slots')
        print('  (tolerances: nurg 0.03, as urg is shown rounded; ntckts 0.001)')
        print('  mismatches: %s' % ('; '.join(bad) if bad else 'none'))
        print()
    nodes = share_mon(capdir)
    model = model_tickets(dict((str(j), d) for j, d in active), nodes, conf)
    if model:
        bad = []
        for j, d in active:
            got, want = num(d, 'stickets'), model.get(str(j), 0.0)
            # usage moves between the scheduler's pass and share_mon's
            if abs(got - want) > max(2.0, 0.01 * want):
                bad.append('%d: shown %g, model %.1f' % (j, got, want))
        print('share-tree tickets by the rule-5 model (FINDINGS.md): %s'
              % ('; '.join(bad) if bad else 'all within 1%'))
        print('  model: ' + ', '.join('%d %.1f' % (j, model.get(str(j), 0))
                                      for j, _ in active))
        print()
    if nodes:
        print('share tree (sge_share_mon: targets are 0 where it sees no'
              ' jobs, see FINDINGS.md)')
        nfmt = '%-22s %6s %7s %7s %8s %8s %7s %10s'
        print(nfmt % ('node', 'shares', 'level%', 'total%', 'lt_target',
                      'st_target', 'actual', 'usage'))
        for n in nodes:
            print(nfmt % (n['node_name'], n.get('shares', ''),
                          '%.4f' % float(n.get('level%', 0)),
                          '%.4f' % float(n.get('total%', 0)),
                          '%.4f' % float(n.get('long_target_share', 0)),
                          '%.4f' % float(n.get('short_target_share', 0)),
                          '%.4f' % float(n.get('actual_share', 0)),
                          '%.4f' % float(n.get('usage', 0))))
        print()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for capdir in sys.argv[1:]:
        show(capdir)


if __name__ == '__main__':
    main()
