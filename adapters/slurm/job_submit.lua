-- maui-py job_submit.lua: every job enters Slurm held, so that only maui-py starts jobs.
--
-- Install: copy next to slurm.conf (Slurm looks for job_submit.lua in the directory of
-- slurm.conf) and set JobSubmitPlugins=lua; `scontrol reconfigure` loads a new version.
--
-- slurm_job_submit: priority 0 holds the job (Reason=JobHeldUser). maui-py starts a job
-- with `scontrol update JobId=X NodeList=... NumNodes=n-n` and `scontrol release X`.
-- Because that update rewrites the job's ReqNodeList and NumNodes, the values the user
-- submitted are kept in AdminComment ("maui-py:nodes=<list>;min=<n>;max=<n>"), which
-- users cannot change; maui-py reads them from there. A site that uses AdminComment for
-- something else can append its text after ours.
--
-- slurm_job_modify: a priority-0 hold set at submit counts as a USER hold, which the
-- owner could `scontrol release` and so run the job behind the scheduler's back. Refuse
-- every priority change (release, hold, uhold, Priority=, top) from anyone but the
-- scheduler's uids. Add the uid maui-py runs as if it is not root (and SlurmUser's uid
-- if it is not root: Slurm runs its own updates as SlurmUser).
--
-- A job maui-py has released (priority no longer 0) but that has not started yet waits
-- for the nodes maui-py pinned it to, with the shape maui-py planned. Its owner must not
-- change that shape then: node list, node/task/CPU counts, CPUs per node or task, memory,
-- partition, time limit, features or gres would make Slurm start something maui-py did
-- not plan (e.g. NodeList=other-node runs it at once elsewhere). Such changes are refused
-- from anyone but the scheduler's uids until the job starts; a job still at the gate
-- (priority 0) may be changed, since maui-py reads it again before it plans it.

local SCHEDULER_UIDS = { [0] = true }

local function str(v)
   if v == nil then return "" end
   return tostring(v)
end

function slurm_job_submit(job_desc, part_list, submit_uid)
   job_desc.admin_comment = "maui-py:nodes=" .. str(job_desc.req_nodes)
      .. ";min=" .. str(job_desc.min_nodes) .. ";max=" .. str(job_desc.max_nodes)
   job_desc.priority = 0
   return slurm.SUCCESS
end

-- Fields of job_desc a released, not yet started job's owner may not set (see above).
local PLANNED_FIELDS = {
   "req_nodes", "exc_nodes", "min_nodes", "max_nodes", "num_tasks", "min_cpus", "max_cpus",
   "cpus_per_task", "pn_min_cpus", "ntasks_per_node", "pn_min_memory", "partition",
   "time_limit", "time_min", "features", "cluster_features", "tres_per_node",
   "tres_per_job", "tres_per_task", "tres_per_socket", "cpus_per_tres", "mem_per_tres",
}

local UNSET_NUMBERS = {}
for _, name in ipairs({ "NO_VAL", "NO_VAL16", "NO_VAL64", "NO_VAL8" }) do
   if slurm[name] ~= nil then UNSET_NUMBERS[slurm[name]] = true end
end

-- Whether an update request sets this field (Slurm leaves unset numbers at NO_VAL*).
local function is_set(v)
   if v == nil then return false end
   if type(v) == "number" then return not UNSET_NUMBERS[v] end
   return true
end

local JOB_PENDING = slurm.JOB_PENDING or 0   -- enum job_states; not exported by Slurm 22.05

-- Released by maui-py and not started: pending with a priority other than 0.
local function released_waiting(job_rec)
   if job_rec == nil or job_rec.priority == nil or job_rec.job_state == nil then
      return false
   end
   return job_rec.job_state % 256 == JOB_PENDING and job_rec.priority ~= 0
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
   if SCHEDULER_UIDS[modify_uid] then
      return slurm.SUCCESS
   end
   if is_set(job_desc.priority) then
      slurm.log_user("job start is controlled by the external scheduler (maui-py)")
      return slurm.ERROR
   end
   if released_waiting(job_rec) then
      for _, name in ipairs(PLANNED_FIELDS) do
         if is_set(job_desc[name]) then
            slurm.log_user("maui-py has planned this job's start: " .. name
               .. " cannot change until it starts")
            return slurm.ERROR
         end
      end
   end
   return slurm.SUCCESS
end

slurm.log_info("job_submit.lua (maui-py) loaded: every job enters held")
return slurm.SUCCESS
