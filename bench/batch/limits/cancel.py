#!/usr/bin/env python3
# cancel.py PORT TABLE K OFFSETS...: run simhash_pairs on TABLE at k, send
# its backend SIGINT (what pg_cancel_backend sends) once it has used OFFSET
# CPU seconds, and print the backend CPU seconds from the signal to the end
# of the call, per offset; stops at the first offset past the whole call.
# The backend must be on this machine (its /proc); psql is $PSQL.
import os, subprocess, sys, time, statistics
B = os.environ.get('PSQL', 'psql')
port, tab, k = sys.argv[1], sys.argv[2], sys.argv[3]
offs = [float(x) for x in sys.argv[4:]]
def psql(sql, app='b19ctl'):
    return subprocess.run([B, '-X', '-At', '-p', port, '-c', sql],
                          capture_output=True, text=True, env=dict(os.environ, PGAPPNAME=app))
res = []
for off in offs:
    p = subprocess.Popen([B, '-X', '-At', '-p', port, '-c',
                          "SET jit = off; SET maintenance_work_mem = '1GB'; SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM %s', %s)" % (tab, k)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, PGAPPNAME='b19call'))
    t0 = time.time()
    pid = ''
    while not pid:
        pid = psql("SELECT pid FROM pg_stat_activity WHERE application_name = 'b19call' AND state = 'active'").stdout.strip()
    def cpu():
        try:
            f = open('/proc/%s/stat' % pid).read().rsplit(')', 1)[1].split()
            return (int(f[11]) + int(f[12])) / 100.0
        except OSError:
            return None
    while cpu() is not None and cpu() < off:
        time.sleep(0.002)
    c0 = cpu()
    if c0 is None:
        p.communicate()
        print("offset %.2f CPU s: past the end of the call" % off)
        break
    ts = time.time()
    subprocess.run(['kill', '-INT', pid])
    last = c0
    while p.poll() is None:
        c = cpu()
        if c is not None:
            last = c
        time.sleep(0.002)
    out, err = p.communicate()
    lat = last - c0
    ok = 'cancel' in err
    res.append(lat)
    print("offset %.2f s (call CPU %.2f s): CPU after the signal %.2f s %s" % (ts - t0, c0, lat, 'cancelled' if ok else 'FINISHED: ' + out.strip() + err.strip()), flush=True)
print("median %.3f max %.3f" % (statistics.median(res), max(res)))
