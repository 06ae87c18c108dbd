#!/bin/sh
# SPDX-License-Identifier: MIT
# The storm capture, written to standard output (3 MB: made, not stored).
# Records of the shapes `ibv_eventwatch -A -j` wrote in the 6.12 guest
# (kernel.jsonl): 10,000 CQ_ERR of cq handle 3 of pid 217 ib_write_bw in
# Slurm job 4712, one every 250 us from 00:10:00 (2.5 s), and around them
# what is no storm: the port coming up, an SRQ limit of the same process,
# three CQ_ERR of another process's CQ, and the port going down 5 s in.
exec awk 'BEGIN {
	g = "\"node_guid\":\"f8d2:4cff:fed4:9ed8\""
	k = "\"affiliated\":true,\"source\":\"kernel\"," g
	job = ",\"cgroup\":\"/system.slice/slurmstepd.scope/job_4712/step_0/user/task_0\""
	port("09:59.500000000", "PORT_ACTIVE", 9, "info")
	for (i = 0; i < 10000; i++) {
		us = i * 250
		if (us == 500000)
			obj("00.500000017", "SRQ_LIMIT_REACHED", 15, "srq", "warning", 5, 217, "ib_write_bw", job)
		if (us == 1000000 || us == 1100000 || us == 1200000)
			obj(sprintf("%02d.%09d", us / 1000000, us % 1000000 * 1000 + 5),
			    "CQ_ERR", 0, "cq", "error", 0, 301, "ibv_rc_pingpong",
			    ",\"cgroup\":\"/system.slice/slurmstepd.scope/job_4713/step_0/user/task_0\"")
		obj(sprintf("%02d.%09d", us / 1000000, us % 1000000 * 1000 + 17),
		    "CQ_ERR", 0, "cq", "error", 3, 217, "ib_write_bw", job)
	}
	port("05.000000000", "PORT_ERR", 10, "error")
}
function port(t, ev, code, sev) {
	printf "{\"time\":\"2026-11-24T00:%s%sZ\",\"device\":\"rxe0\",\"port\":1,\"event\":\"%s\",\"code\":%d,\"class\":\"port\",\"severity\":\"%s\",\"affiliated\":false,\"source\":\"verbs\",%s}\n",
	       t ~ /^09/ ? "" : "10:", t, ev, code, sev, g
}
function obj(t, ev, code, cls, sev, h, pid, comm, cg) {
	printf "{\"time\":\"2026-11-24T00:10:%sZ\",\"device\":\"rxe0\",\"port\":null,\"event\":\"%s\",\"code\":%d,\"class\":\"%s\",\"severity\":\"%s\",%s,\"handle\":%d,\"pid\":%d,\"comm\":\"%s\"%s}\n",
	       t, ev, code, cls, sev, k, h, pid, comm, cg
}'
