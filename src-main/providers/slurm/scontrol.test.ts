import { describe, expect, it } from 'vitest';
import {
  keyValues,
  parseScontrolJobs,
  parseScontrolShowJob,
  scontrolShowJobCommand,
  type SlurmJobRecord,
} from './scontrol';

// `scontrol show job` as the test cluster printed it (test/helpers/slurm.ts, Slurm 22.05.8,
// two nodes vm and vm-2), multi-line and --oneliner, in every state the app tells apart.

const RUNNING_ONE = `JobId=1 JobName=run-a
   UserId=root(0) GroupId=root(0) MCS_label=N/A
   Priority=4294901759 Nice=0 Account=(null) QOS=(null)
   JobState=RUNNING Reason=None Dependency=(null)
   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0
   RunTime=00:00:02 TimeLimit=00:10:00 TimeMin=N/A
   SubmitTime=2026-12-01T18:57:06 EligibleTime=2026-12-01T18:57:06
   AccrueTime=2026-12-01T18:57:06
   StartTime=2026-12-01T18:57:07 EndTime=2026-12-01T19:07:07 Deadline=N/A
   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-01T18:57:07 Scheduler=Main
   Partition=debug AllocNode:Sid=localhost:16786
   ReqNodeList=vm ExcNodeList=(null)
   NodeList=vm
   BatchHost=vm
   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*
   TRES=cpu=1,node=1,billing=1
   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*
   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0
   Features=(null) DelayBoot=00:00:00
   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)
   Command=(null)
   WorkDir=/work/main
   StdErr=/tmp/slurmscratch/a.out
   StdIn=/dev/null
   StdOut=/tmp/slurmscratch/a.out
   Power=
   

`;

const RUNNING_TWO_NODES = `JobId=2 JobName=run-ab
   UserId=root(0) GroupId=root(0) MCS_label=N/A
   Priority=4294901758 Nice=0 Account=(null) QOS=(null)
   JobState=RUNNING Reason=None Dependency=(null)
   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0
   RunTime=00:00:02 TimeLimit=00:10:00 TimeMin=N/A
   SubmitTime=2026-12-01T18:57:06 EligibleTime=2026-12-01T18:57:06
   AccrueTime=2026-12-01T18:57:06
   StartTime=2026-12-01T18:57:07 EndTime=2026-12-01T19:07:07 Deadline=N/A
   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-01T18:57:07 Scheduler=Main
   Partition=debug AllocNode:Sid=localhost:16786
   ReqNodeList=(null) ExcNodeList=(null)
   NodeList=vm,vm-2
   BatchHost=vm
   NumNodes=2 NumCPUs=2 NumTasks=2 CPUs/Task=1 ReqB:S:C:T=0:0:*:*
   TRES=cpu=2,node=2,billing=2
   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*
   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0
   Features=(null) DelayBoot=00:00:00
   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)
   Command=(null)
   WorkDir=/work/main
   StdErr=/tmp/slurmscratch/ab.out
   StdIn=/dev/null
   StdOut=/tmp/slurmscratch/ab.out
   Power=
   

`;

const PENDING_RESOURCES_ONELINE = `JobId=3 JobName=all-cpus UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901757 Nice=0 Account=(null) QOS=(null) JobState=PENDING Reason=Resources Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-12-01T18:57:07 EligibleTime=2026-12-01T18:57:07 AccrueTime=2026-12-01T18:57:07 StartTime=Unknown EndTime=Unknown Deadline=N/A SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-01T18:57:07 Scheduler=Main Partition=debug AllocNode:Sid=localhost:16786 ReqNodeList=vm ExcNodeList=(null) NodeList= NumNodes=1 NumCPUs=2 NumTasks=1 CPUs/Task=2 ReqB:S:C:T=0:0:*:* TRES=cpu=2,mem=1000M,node=1,billing=2 Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=* MinCPUsNode=2 MinMemoryNode=0 MinTmpDiskNode=0 Features=(null) DelayBoot=00:00:00 OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null) Command=(null) WorkDir=/work/main StdErr=/tmp/slurmscratch/b.out StdIn=/dev/null StdOut=/tmp/slurmscratch/b.out Power= 
`;

const CANCELLED = `JobId=1 JobName=run-a
   UserId=root(0) GroupId=root(0) MCS_label=N/A
   Priority=4294901759 Nice=0 Account=(null) QOS=(null)
   JobState=CANCELLED Reason=None Dependency=(null)
   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:15
   RunTime=00:00:02 TimeLimit=00:10:00 TimeMin=N/A
   SubmitTime=2026-12-01T18:57:06 EligibleTime=2026-12-01T18:57:06
   AccrueTime=2026-12-01T18:57:06
   StartTime=2026-12-01T18:57:07 EndTime=2026-12-01T18:57:09 Deadline=N/A
   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-01T18:57:07 Scheduler=Main
   Partition=debug AllocNode:Sid=localhost:16786
   ReqNodeList=vm ExcNodeList=(null)
   NodeList=vm
   BatchHost=vm
   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*
   TRES=cpu=1,node=1,billing=1
   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*
   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0
   Features=(null) DelayBoot=00:00:00
   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)
   Command=(null)
   WorkDir=/work/main
   StdErr=/tmp/slurmscratch/a.out
   StdIn=/dev/null
   StdOut=/tmp/slurmscratch/a.out
   Power=
   

`;

const CANCELLED_WHILE_PENDING = `JobId=3 JobName=all-cpus
   UserId=root(0) GroupId=root(0) MCS_label=N/A
   Priority=4294901757 Nice=0 Account=(null) QOS=(null)
   JobState=CANCELLED Reason=Resources Dependency=(null)
   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0
   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A
   SubmitTime=2026-12-01T18:57:07 EligibleTime=2026-12-01T18:57:07
   AccrueTime=2026-12-01T18:57:07
   StartTime=2026-12-01T18:57:09 EndTime=2026-12-01T18:57:09 Deadline=N/A
   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-01T18:57:07 Scheduler=Main
   Partition=debug AllocNode:Sid=localhost:16786
   ReqNodeList=vm ExcNodeList=(null)
   NodeList=
   NumNodes=1 NumCPUs=2 NumTasks=N/A CPUs/Task=2 ReqB:S:C:T=0:0:*:*
   TRES=cpu=2,mem=1000M,node=1,billing=2
   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*
   MinCPUsNode=2 MinMemoryNode=0 MinTmpDiskNode=0
   Features=(null) DelayBoot=00:00:00
   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)
   Command=(null)
   WorkDir=/work/main
   StdErr=/tmp/slurmscratch/b.out
   StdIn=/dev/null
   StdOut=/tmp/slurmscratch/b.out
   Power=
   

`;

const FAILED = `JobId=5 JobName=wrap
   UserId=root(0) GroupId=root(0) MCS_label=N/A
   Priority=4294901755 Nice=0 Account=(null) QOS=(null)
   JobState=FAILED Reason=NonZeroExitCode Dependency=(null)
   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=3:0
   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A
   SubmitTime=2026-12-01T18:57:10 EligibleTime=2026-12-01T18:57:10
   AccrueTime=2026-12-01T18:57:10
   StartTime=2026-12-01T18:57:10 EndTime=2026-12-01T18:57:10 Deadline=N/A
   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-01T18:57:10 Scheduler=Main
   Partition=debug AllocNode:Sid=localhost:16786
   ReqNodeList=(null) ExcNodeList=(null)
   NodeList=vm
   BatchHost=vm
   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*
   TRES=cpu=1,node=1,billing=1
   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*
   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0
   Features=(null) DelayBoot=00:00:00
   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)
   Command=(null)
   WorkDir=/work/main
   StdErr=/tmp/slurmscratch/f.out
   StdIn=/dev/null
   StdOut=/tmp/slurmscratch/f.out
   Power=
   

`;

const COMPLETED_ONELINE = `JobId=6 JobName=wrap UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901754 Nice=0 Account=(null) QOS=(null) JobState=COMPLETED Reason=None Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-12-01T18:57:10 EligibleTime=2026-12-01T18:57:10 AccrueTime=2026-12-01T18:57:10 StartTime=2026-12-01T18:57:10 EndTime=2026-12-01T18:57:10 Deadline=N/A SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-01T18:57:10 Scheduler=Main Partition=debug AllocNode:Sid=localhost:16786 ReqNodeList=(null) ExcNodeList=(null) NodeList=vm BatchHost=vm NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:* TRES=cpu=1,node=1,billing=1 Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=* MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0 Features=(null) DelayBoot=00:00:00 OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null) Command=(null) WorkDir=/work/main StdErr=/tmp/slurmscratch/ok.out StdIn=/dev/null StdOut=/tmp/slurmscratch/ok.out Power= 
`;

const REQUEUED = `JobId=7 JobName=down-requeue
   UserId=root(0) GroupId=root(0) MCS_label=N/A
   Priority=4294901753 Nice=0 Account=(null) QOS=(null)
   JobState=PENDING Reason=BeginTime Dependency=(null)
   Requeue=1 Restarts=1 BatchFlag=1 Reboot=0 ExitCode=0:0
   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A
   SubmitTime=2026-12-01T18:57:14 EligibleTime=2026-12-01T18:59:15
   AccrueTime=2026-12-01T18:59:15
   StartTime=2026-12-01T18:59:15 EndTime=Unknown Deadline=N/A
   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-01T18:57:13 Scheduler=Main
   Partition=debug AllocNode:Sid=localhost:16786
   ReqNodeList=vm ExcNodeList=(null)
   NodeList=
   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*
   TRES=cpu=1,node=1,billing=1
   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*
   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0
   Features=(null) DelayBoot=00:00:00
   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)
   Command=(null)
   WorkDir=/work/main
   StdErr=/tmp/slurmscratch/d.out
   StdIn=/dev/null
   StdOut=/tmp/slurmscratch/d.out
   Power=
   

`;

const NODE_FAIL = `JobId=8 JobName=down-norequeue
   UserId=root(0) GroupId=root(0) MCS_label=N/A
   Priority=4294901752 Nice=0 Account=(null) QOS=(null)
   JobState=NODE_FAIL Reason=NodeDown Dependency=(null)
   Requeue=0 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:15
   RunTime=00:00:01 TimeLimit=UNLIMITED TimeMin=N/A
   SubmitTime=2026-12-01T18:57:13 EligibleTime=2026-12-01T18:57:13
   AccrueTime=2026-12-01T18:57:13
   StartTime=2026-12-01T18:57:13 EndTime=2026-12-01T18:57:14 Deadline=N/A
   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-01T18:57:13 Scheduler=Main
   Partition=debug AllocNode:Sid=localhost:16786
   ReqNodeList=vm ExcNodeList=(null)
   NodeList=vm
   BatchHost=vm
   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*
   TRES=cpu=1,node=1,billing=1
   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*
   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0
   Features=(null) DelayBoot=00:00:00
   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)
   Command=(null)
   WorkDir=/work/main
   StdErr=/tmp/slurmscratch/d.out
   StdIn=/dev/null
   StdOut=/tmp/slurmscratch/d.out
   Power=
   

`;

const TIMEOUT = `JobId=9 JobName=tl
   UserId=root(0) GroupId=root(0) MCS_label=N/A
   Priority=4294901751 Nice=0 Account=(null) QOS=(null)
   JobState=TIMEOUT Reason=TimeLimit Dependency=(null)
   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:15
   RunTime=00:01:17 TimeLimit=00:01:00 TimeMin=N/A
   SubmitTime=2026-12-01T18:57:17 EligibleTime=2026-12-01T18:57:17
   AccrueTime=2026-12-01T18:57:17
   StartTime=2026-12-01T18:57:17 EndTime=2026-12-01T18:58:34 Deadline=N/A
   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-01T18:57:17 Scheduler=Main
   Partition=debug AllocNode:Sid=localhost:16786
   ReqNodeList=(null) ExcNodeList=(null)
   NodeList=vm
   BatchHost=vm
   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*
   TRES=cpu=1,node=1,billing=1
   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*
   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0
   Features=(null) DelayBoot=00:00:00
   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)
   Command=(null)
   WorkDir=/work/main
   StdErr=/tmp/slurmscratch/t.out
   StdIn=/dev/null
   StdOut=/tmp/slurmscratch/t.out
   Power=
   

`;

const PREEMPTED = `JobId=1 JobName=victim
   UserId=root(0) GroupId=root(0) MCS_label=N/A
   Priority=4294901759 Nice=0 Account=(null) QOS=(null)
   JobState=PREEMPTED Reason=None Dependency=(null)
   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:15
   RunTime=00:00:01 TimeLimit=UNLIMITED TimeMin=N/A
   SubmitTime=2026-12-01T18:58:54 EligibleTime=2026-12-01T18:58:54
   AccrueTime=2026-12-01T18:58:54
   StartTime=2026-12-01T18:58:55 EndTime=2026-12-01T18:58:56 Deadline=N/A
   PreemptEligibleTime=2026-12-01T18:58:55 PreemptTime=2026-12-01T18:58:56
   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-12-01T18:58:55 Scheduler=Main
   Partition=debug AllocNode:Sid=localhost:16786
   ReqNodeList=(null) ExcNodeList=(null)
   NodeList=vm
   BatchHost=vm
   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*
   TRES=cpu=1,node=1,billing=1
   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*
   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0
   Features=(null) DelayBoot=00:00:00
   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)
   Command=(null)
   WorkDir=/work/main
   StdErr=/dev/null
   StdIn=/dev/null
   StdOut=/dev/null
   Power=
   

`;

describe('scontrolShowJobCommand', () => {
  it('asks for one line per job', () => {
    expect(scontrolShowJobCommand('12')).toBe('scontrol --oneliner show job 12');
    expect(scontrolShowJobCommand('12_3')).toBe('scontrol --oneliner show job 12_3');
  });

  it.each(['', '12 13', '$(id)', '12;x'])('refuses %j', (id) => {
    expect(() => scontrolShowJobCommand(id)).toThrow();
  });
});

describe('parseScontrolShowJob', () => {
  it.each<[string, string, Partial<SlurmJobRecord>]>([
    [
      'RUNNING on one node',
      RUNNING_ONE,
      {
        jobId: '1',
        name: 'run-a',
        state: 'RUNNING',
        reason: 'None',
        exitCode: 0,
        exitSignal: 0,
        restarts: 0,
        requeue: true,
        nodes: 'vm',
        partition: 'debug',
        startTime: '2026-12-01T18:57:07',
        endTime: '2026-12-01T19:07:07',
        stdOut: '/tmp/slurmscratch/a.out',
      },
    ],
    ['RUNNING on two nodes', RUNNING_TWO_NODES, { state: 'RUNNING', nodes: 'vm,vm-2' }],
    [
      'PENDING for Resources, one line',
      PENDING_RESOURCES_ONELINE,
      {
        jobId: '3',
        state: 'PENDING',
        reason: 'Resources',
        nodes: '',
        startTime: null,
        endTime: null,
      },
    ],
    ['CANCELLED while running', CANCELLED, { state: 'CANCELLED', exitCode: 0, exitSignal: 15 }],
    [
      'CANCELLED while pending',
      CANCELLED_WHILE_PENDING,
      { state: 'CANCELLED', reason: 'Resources', nodes: '' },
    ],
    ['FAILED', FAILED, { state: 'FAILED', reason: 'NonZeroExitCode', exitCode: 3, exitSignal: 0 }],
    [
      'COMPLETED, one line',
      COMPLETED_ONELINE,
      { jobId: '6', state: 'COMPLETED', exitCode: 0, stdOut: '/tmp/slurmscratch/ok.out' },
    ],
    [
      'requeued after its node went DOWN',
      REQUEUED,
      {
        state: 'PENDING',
        reason: 'BeginTime',
        restarts: 1,
        requeue: true,
        nodes: '',
        endTime: null,
      },
    ],
    [
      'NODE_FAIL (--no-requeue, node set DOWN)',
      NODE_FAIL,
      {
        state: 'NODE_FAIL',
        reason: 'NodeDown',
        requeue: false,
        restarts: 0,
        nodes: 'vm',
        exitSignal: 15,
      },
    ],
    ['TIMEOUT', TIMEOUT, { state: 'TIMEOUT', reason: 'TimeLimit', exitSignal: 15 }],
    ['PREEMPTED', PREEMPTED, { state: 'PREEMPTED', reason: 'None', stdOut: '/dev/null' }],
  ])('%s', (_, text, expected) => {
    expect(parseScontrolShowJob(text)).toMatchObject(expected);
  });

  it('keeps every field as printed', () => {
    const f = parseScontrolShowJob(RUNNING_ONE)!.fields;
    expect(f).toMatchObject({
      'AllocNode:Sid': 'localhost:16786',
      'CPUs/Task': '1',
      'ReqB:S:C:T': '0:0:*:*',
      TRES: 'cpu=1,node=1,billing=1',
      TimeLimit: '00:10:00',
      UserId: 'root(0)',
      Power: '',
    });
    expect(parseScontrolShowJob(PREEMPTED)!.fields.PreemptTime).toBe('2026-12-01T18:58:56');
  });

  it('finds the job asked for among several, and passes over noise', () => {
    const text = `Welcome!\n${COMPLETED_ONELINE}${PENDING_RESOURCES_ONELINE}`;
    expect(parseScontrolJobs(text).map((j) => j.jobId)).toEqual(['6', '3']);
    expect(parseScontrolShowJob(text, '3')?.state).toBe('PENDING');
    expect(parseScontrolShowJob(`${FAILED}${TIMEOUT}`, '9')?.state).toBe('TIMEOUT');
    expect(parseScontrolShowJob(text, '99')).toBeNull();
    expect(parseScontrolShowJob('')).toBeNull();
  });
});

describe('keyValues', () => {
  it.each<[string, Record<string, string>]>([
    [
      "JobState=PENDING Reason=Job's account not known, so it can't use this partition (gpu allows gputeam) Dependency=(null)",
      {
        JobState: 'PENDING',
        Reason: "Job's account not known, so it can't use this partition (gpu allows gputeam)",
        Dependency: '(null)',
      },
    ],
    [
      'WorkDir=/home/me/my runs StdIn=/dev/null',
      { WorkDir: '/home/me/my runs', StdIn: '/dev/null' },
    ],
    ['Comment= Power=', { Comment: '', Power: '' }],
  ])('%s', (text, expected) => {
    expect(keyValues(text)).toEqual(expected);
  });
});
