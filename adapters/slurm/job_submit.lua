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
-- scheduler's uids. Add the uid maui-py runs as if it is not root.

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

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
   if not SCHEDULER_UIDS[modify_uid] and job_desc.priority ~= nil
      and job_desc.priority ~= slurm.NO_VAL then
      slurm.log_user("job start is controlled by the external scheduler (maui-py)")
      return slurm.ERROR
   end
   return slurm.SUCCESS
end

slurm.log_info("job_submit.lua (maui-py) loaded: every job enters held")
return slurm.SUCCESS
