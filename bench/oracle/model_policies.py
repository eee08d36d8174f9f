#!/usr/bin/env python3
"""Grid Engine 8.1.9's override, functional and share-tree tickets, modelled.

usage: model_policies.py RUN_DIR [CAPTURE...]

A model of sge_calc_tickets() (Son of Grid Engine, sgeee.c) written from
the rules in FINDINGS.md (rules 7 to 10), checked against a run of
`bench/oracle/sge --scenario functional`: for every capture it rebuilds
the users', projects' and departments' functional shares and override
tickets from RUN_DIR/actions.log (as they were at the capture's time),
the jobs from qstat -ext (owner, project, department, -js, -ot, state,
slots), the share tree and its usage from sge_share_mon, and the
scheduler configuration from sched_conf.txt, and prints every job's
otckt, ftckt and stckt beside Grid Engine's.  It exits 1 when a job is
off by more than 1 ticket (Grid Engine prints them truncated) plus 0.5%.
"""
import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parse_sge import (build_tree, count, jobs_of, num, pe_min,  # noqa: E402
                       sched_conf, share_mon, targets)


class Job:
    def __init__(self, jid, d):
        self.id = jid
        self.user = d.get('JB_owner', '')
        self.project = d.get('JB_project') or None
        self.dept = d.get('JB_department') or None
        self.js = int(num(d, 'JB_jobshare'))
        self.ot = int(num(d, 'JB_override_tickets'))
        self.running = 'r' in d.get('state', '')
        self.slots = pe_min(d)
        self.d = d
        self.o = self.f = self.s = 0.0
        self.tickets = 0.0      # jref->tickets: what later policies see
        # the shares the functional pass gave it (user, project, dept)
        self.fsh = [0.0, 0.0, 0.0]


class Ent:
    """a user, project or department: fshare, oticket, running count"""
    def __init__(self, fshare=0, oticket=0):
        self.fshare, self.oticket, self.cnt = fshare, oticket, 0


def entities(run, until):
    """(users, projects, depts) as actions.log set them up to 'until'"""
    ents = ({}, {}, {'defaultdepartment': Ent()})
    kinds = {'user': 0, 'project': 1, 'department': 2}
    p = os.path.join(run, 'actions.log')
    for line in open(p) if os.path.exists(p) else []:
        f = line.split()
        if len(f) >= 7 and f[1] in kinds and f[3] == 'fshare':
            if int(f[0]) > until:
                break
            ents[kinds[f[1]]][f[2]] = Ent(int(f[4]), int(f[6]))
    return ents


def refs(job, ents):
    """the job's user, project and department objects (None: none)"""
    users, projects, depts = ents
    return (users.setdefault(job.user, Ent()),
            projects.get(job.project) if job.project else None,
            depts.get(job.dept) if job.dept else None)


def hierarchy(conf):
    """sconf_ph_fill_array(): [(policy letter, dependent)]"""
    s = conf.get('policy_hierarchy', 'OFS').upper()
    if s == 'NONE':
        s = ''
    out = [(c, True) for c in s]
    out += [(c, False) for c in 'OFS' if c not in s]
    return out


def by_prior(jobs, dependent):
    """a category's job list: by prior tickets, submission, id if dependent"""
    if not dependent:
        return list(jobs)
    return sorted(jobs, key=lambda j: (-j.tickets, j.submit, j.id))


def override_running(jobs, ents, shared):
    for j in jobs:
        o = j.ot
        for e in refs(j, ents):
            if e and e.oticket and (e.cnt or not shared):
                o += e.oticket / e.cnt if shared else e.oticket
        j.o = o


def override_pending(pend, ents, dependent):
    """calculate_pending_shared_override_tickets()"""
    cats = {}
    for j in pend:
        r = refs(j, ents)
        key = (j.ot,) + tuple(id(e) if e and e.oticket else None for e in r)
        if any(key[1:]) or j.ot:
            cats.setdefault(key, []).append(j)
    cats = [by_prior(v, dependent) for v in cats.values()]
    chosen = []
    while cats:
        best, bo = None, -1
        for c in cats:
            j = c[0]
            o = j.ot
            for e in refs(j, ents):
                if e and e.oticket > 0:
                    o += e.oticket / (e.cnt + 1)
            j.o = o
            if best is None or o > bo or (o == bo and j.id < best[0].id):
                best, bo = c, o
        j = best.pop(0)
        if not best:
            cats.remove(best)
        for e in refs(j, ents):
            if e:
                e.cnt += 1
        j.tickets += bo         # whatever the hierarchy says
        chosen.append(j)
    for j in chosen:
        for e in refs(j, ents):
            if e:
                e.cnt -= 1


def weights(conf, sums):
    """get_functional_weighting_parameters(): user, project, dept, job"""
    w = [float(conf.get(k, 0)) if s > 0 else 0.0 for k, s in
         zip(('weight_user', 'weight_project', 'weight_department',
              'weight_job'), sums)]
    t = sum(w)
    return [x / t for x in w] if t > 0 else w


def ftickets(j, r, sums, w, total):
    """calc_job_functional_tickets_pass2()"""
    f = 0.0
    for i in range(3):
        if r[i] is not None and sums[i]:
            f += w[i] * j.fsh[i] * total / sums[i]
    if sums[3]:
        f += w[3] * j.js * total / sums[3]
    return f


def pass1(j, r, sums, shared, add_all):
    """calc_job_functional_tickets_pass1(): the job's shares into sums"""
    for i in range(3):
        if r[i] is not None:
            c = r[i].cnt
            j.fsh[i] = r[i].fshare / c if shared else r[i].fshare
            if add_all or c <= 1:
                sums[i] += j.fsh[i]
    sums[3] += j.js


def functional(run, pend, ents, conf, dependent):
    total = float(conf.get('weight_tickets_functional', 0))
    shared = conf.get('share_functional_shares', 'TRUE').upper() == 'TRUE'
    sums = [0.0] * 4
    for j in run:
        pass1(j, refs(j, ents), sums, shared, True)
    w = weights(conf, sums)
    for j in run:
        j.f = ftickets(j, refs(j, ents), sums, w, total)
    if not pend:
        return
    cats = {}
    for j in pend:
        r = refs(j, ents)
        key = (j.js,) + tuple(id(e) if e and e.fshare else None for e in r)
        if any(key[1:]) or j.js:
            cats.setdefault(key, []).append(j)
    cats = [by_prior(v, dependent) for v in cats.values()]
    njobs = sum(len(c) for c in cats)
    w = weights(conf, [1, 1, 1, 1])
    chosen = []
    for _ in range(min(int(conf.get('max_functional_jobs_to_schedule',
                                    200)), njobs)):
        best, bf = None, -1
        for c in cats:
            j = c[0]
            r = refs(j, ents)
            # calc_intern_pending_job_functional_tickets(): its shares
            # as if it ran next, the sums without it (shared) or with it
            s = [x + 0.001 for x in sums]
            for i in range(3):
                if r[i] is not None:
                    fs = r[i].fshare
                    j.fsh[i] = fs / (r[i].cnt + 1) if shared else fs
                    if not shared:
                        s[i] += j.fsh[i]
            s[3] += j.js
            j.f = ftickets(j, r, s, w, total)
            v = j.f + (j.tickets if dependent else 0)
            if v >= bf and (best is None or v > bf or
                            j.submit < best[0].submit or
                            (j.submit == best[0].submit and
                             j.id < best[0].id)):
                best, bf = c, v
        if best is None:
            break
        j = best.pop(0)
        if best:        # copy_ftickets(): the next one's, until computed
            best[0].f = j.f
        else:
            cats.remove(best)
        r = refs(j, ents)
        for e in r:
            if e:
                e.cnt += 1
        pass1(j, r, sums, shared, not shared)
        j.f = ftickets(j, r, sums, w, total)
        chosen.append(j)
    for j in chosen:
        for e in refs(j, ents):
            if e:
                e.cnt -= 1
        if dependent:
            j.tickets += j.f
    # destribute_ftickets(): past the limit, a category's first job's
    # last value goes to the rest of it
    for c in cats:
        for j in c[1:]:
            j.f = c[0].f
            if dependent:
                j.tickets += j.f


def share_tree(jobs, nodes, conf, dependent, project_names=()):
    """rule 5, with the prior tickets in the sort when dependent"""
    total = float(conf.get('weight_tickets_share', 0))
    cf = float(conf.get('compensation_factor', 0))
    root, by_path = build_tree(nodes)
    if root is None or total <= 0:
        return
    users = {p.rsplit('/', 1)[1]: n for p, n in by_path.items()
             if n is not root and not n.children}
    projects = set(p.strip('/').split('/')[0] for p in by_path
                   if p.strip('/').split('/')[0] in project_names)
    for j in jobs:
        # search_userprj_node(): a job with a project finds its user
        # under the project's node (none if the tree has no such node);
        # one without, its user outside every project's subtree
        if j.project:
            n = by_path.get('/%s/%s' % (j.project, j.user))
        else:
            n = users.get(j.user)
            if n is not None and n.name.strip('/').split('/')[0] in \
                    projects:
                n = None
        if n is not None:
            n.jobs.append((j.id, {'state': 'r' if j.running else 'qw',
                                  'job': j}))
    running = lambda d: 'r' in d['state']
    stt = targets(root, running, cf)
    for n in users.values():
        rj = [d['job'] for _, d in n.jobs if running(d)]
        sjs = sum(j.js for j in rj)
        for j in rj:
            t = total * stt[n][1]
            j.s = int(j.js * t / sjs) if sjs else t / len(rj)
    stt = targets(root, lambda d: True, cf)

    def sort_nodes(node):
        if node is root:
            act = [c for c in node.children if count(c, lambda d: True)]
            if not node.jobs and len(act) == 1:
                return sort_nodes2(act[0], act[0])
        return sort_nodes2(root, node)

    def sort_nodes2(r, node):
        lst = []
        for _, d in node.jobs:
            j = d['job']
            prior = j.tickets if dependent else 0.0
            lst.append([j, prior + 0.01 * j.js if dependent else j.js,
                        prior, 0.0])
        for c in node.children:
            if count(c, lambda d: True):
                if c is r:
                    continue
                lst += sort_nodes2(r, c)
        if r is not node or node.jobs:
            lst.sort(key=lambda e: (not e[0].running, -e[1], e[0].id))
            k = 1
            for e in lst:
                e[3] = stt[node][0] / k
                e[1] = e[2] + e[3] * total
                k += e[0].slots
        return lst

    for j, _, _, shr in sort_nodes(root):
        if not j.running:
            j.s = shr * total
            if dependent:
                j.tickets += j.s


def model(run, capdir):
    jobs = {}
    for kind in ('ext', 'urg'):
        for jid, d in jobs_of(os.path.join(capdir,
                                           'qstat-%s.xml' % kind)).items():
            jobs.setdefault(jid, {}).update(d)
    # qstat -ext's XML prints every JB_jobshare as 0: -js from qstat -j
    sub, js = {}, {}
    p = os.path.join(capdir, 'qstat-j.xml')
    if os.path.exists(p):
        for jl in ET.parse(p).getroot().iter():
            n = jl.find('JB_job_number')
            t = jl.find('JB_submission_time')
            if n is not None and t is not None:
                sub[n.text] = int(t.text)
                js[n.text] = int(jl.findtext('JB_jobshare') or 0)
    until = int(open(os.path.join(capdir, 'time')).read())
    conf = sched_conf(capdir)
    ents = entities(run, until)
    all_jobs = []
    for jid, d in jobs.items():
        if 'h' in d.get('state', ''):
            continue
        j = Job(int(jid), d)
        j.submit = sub.get(jid, 0)
        j.js = js.get(jid, j.js)
        all_jobs.append(j)
    all_jobs.sort(key=lambda j: (not j.running, j.id))
    run_jobs = [j for j in all_jobs if j.running]
    pend = [j for j in all_jobs if not j.running]
    for j in run_jobs:
        for e in refs(j, ents):
            if e:
                e.cnt += 1
    shared_o = conf.get('share_override_tickets', 'TRUE').upper() == 'TRUE'
    override_running(run_jobs, ents, shared_o)
    for pol, dep in hierarchy(conf):
        if pol == 'O':
            override_pending(pend, ents, dep)
        elif pol == 'F':
            functional(run_jobs, pend, ents, conf, dep)
        elif pol == 'S':
            share_tree(all_jobs, share_mon(capdir), conf, dep, ents[1])
    return all_jobs


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    run = sys.argv[1]
    caps = sys.argv[2:] or sorted(
        os.path.join(run, c) for c in os.listdir(run)
        if os.path.isdir(os.path.join(run, c)) and c[0].isdigit())
    bad = 0
    for capdir in caps:
        conf = sched_conf(capdir)
        print('== %s  (policy_hierarchy %s, share_functional_shares %s,'
              ' max_functional_jobs_to_schedule %s)'
              % (os.path.basename(capdir.rstrip('/')),
                 conf.get('policy_hierarchy'),
                 conf.get('share_functional_shares'),
                 conf.get('max_functional_jobs_to_schedule')))
        print('%5s %-9s %-4s %-6s %3s %5s %5s  %7s %7s  %7s %7s  %7s %7s'
              % ('job', 'user', 'prj', 'dept', 'js', 'ot', 'state',
                 'otckt', 'model', 'ftckt', 'model', 'stckt', 'model'))
        for j in model(capdir and os.path.dirname(capdir.rstrip('/')),
                       capdir):
            d = j.d
            row = []
            for k, m in (('otickets', j.o), ('ftickets', j.f),
                         ('stickets', j.s)):
                got = num(d, k)
                ok = abs(got - m) <= 1 + 0.005 * m
                bad += not ok
                row += [d.get(k, '?'), '%.1f%s' % (m, '' if ok else '!')]
            print('%5d %-9s %-4s %-6s %3d %5d %5s  %7s %7s  %7s %7s  %7s %7s'
                  % ((j.id, j.user, j.project or '-', (j.dept or '-')[:6],
                      j.js, j.ot, d.get('state', '')) + tuple(row)))
        print()
    print('%s' % ('every ticket within 1 + 0.5%' if not bad
                  else '%d tickets off (marked !)' % bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
