#!/usr/bin/env python3
"""Print one capture of bench/oracle/sge as tables.

usage: parse_sge.py CAPTURE_DIR...

Per job (running, pending and held, from qstat -u '*' -s a -urg/-pri/-ext
-xml): id, user, state, slots, urg, rrcontr, wtcontr, dlcontr, nurg,
npprior, ntckts, tickets (stckt), prio, and the POSIX priority.
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
            # qstat rounds urg to an integer and the others to 5 digits
            if (abs(n - num(d, 'JB_nurg')) > 0.03 or
                    abs(t - num(d, 'JAT_ntix')) > 0.001 or
                    abs(pp - num(d, 'JB_nppri')) > 0.00001):
                bad.append('%d: nurg %.5f/%s ntckts %.5f/%s npprior %.5f/%s'
                           % (j, n, d.get('JB_nurg'), t, d.get('JAT_ntix'),
                              pp, d.get('JB_nppri')))
        print('  (tolerances: nurg 0.03, as urg is shown rounded; ntckts 0.001)')
        print('  mismatches: %s' % ('; '.join(bad) if bad else 'none'))
        print()
    nodes = share_mon(capdir)
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
