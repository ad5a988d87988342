"""The ``ray`` training backend: jobs run on the team's own Ray cluster through its Jobs API
(docs/ray.md). ``settings`` keeps where the cluster and the artifact storage are; ``workdir``
packs the project at the job's commit; ``client`` speaks to the dashboard; ``watch`` follows a
job; ``storage`` brings its artifacts back with checksums; ``runner`` ties them to the job
manager."""
