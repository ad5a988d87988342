"""Every error code the API answers, each with its HTTP status(es) and a one-line meaning.

A code is the ``code`` of the one JSON error shape (``server/core/errors.py``). Raise errors with
``code=ErrorCode.X``, never a free string: ``ErrorCode`` is a ``StrEnum``, so the JSON body carries
the same text. ``docs/api.md`` lists the codes, written from this module by
``scripts/error_codes_doc.py``. A code with no status is carried inside a 200 answer or an event
(a job's outcome, a skipped file, a websocket error); ``error`` takes the status of the HTTP error
it names. A code with two statuses is raised with both today (listed in ``docs/api.md``).
"""

from enum import StrEnum


class ErrorCode(StrEnum):
    """An error code, its HTTP statuses and what it means."""

    statuses: tuple[int, ...]
    meaning: str

    def __new__(cls, value: str, statuses: tuple[int, ...] = (), meaning: str = "") -> "ErrorCode":
        member = str.__new__(cls, value)
        member._value_ = value
        member.statuses = statuses
        member.meaning = meaning
        return member

    ADMIN_ONLY = "admin_only", (403,), "this needs an administrator"
    ALREADY_A_REPOSITORY = "already_a_repository", (422,), "this folder is already a Git repository"
    ALREADY_INSTALLED = "already_installed", (409,), "the package's files already exist in the project"
    ARTIFACT_MISSING = "artifact_missing", (409,), "a file the job reported is missing from the job's storage"
    AUTH_FAILED = "auth_failed", (403,), "the remote refused the credentials"
    BACKEND_UNAVAILABLE = (
        "backend_unavailable", (422, 503),
        "the training backend is not configured (422) or cannot be reached (503)")
    BACKUP_TOO_LARGE = "backup_too_large", (413,), "the unsaved text of a file is over the size kept for it"
    BAD_BUDGETS = "bad_budgets", (422,), "the project's budgets file cannot be read"
    BAD_CALIBRATION = "bad_calibration", (422,), "the calibration data for quantizing is unusable"
    BAD_COMMAND = "bad_command", (422, 503), "the command is empty (422), or the device refused it (503)"
    BAD_COMMIT = "bad_commit", (422,), "the revision is not a commit"
    BAD_COMPARISON = "bad_comparison", (422,), "a run cannot be compared with the other"
    BAD_CONFIG = "bad_config", (422,), "the local job's config is invalid"
    BAD_DATASET = "bad_dataset", (422,), "the dataset folder or file is unusable"
    BAD_EDIT = "bad_edit", (422,), "the edits do not fit the file"
    BAD_GATEWAY = "bad_gateway", (502,), "a remote service answered with something unusable"
    BAD_GRID = "bad_grid", (422,), "a sweep's grid entry is not a list of values"
    BAD_HOST = "bad_host", (400,), "the Host header is not an allowed host"
    BAD_INDEX = "bad_index", (502,), "a catalog's index is not a valid catalog index"
    BAD_INPUT_FILE = "bad_input_file", (422,), "an input file for a tool run is missing or unreadable"
    BAD_INTERPRETER = "bad_interpreter", (422,), "the interpreter is not an executable file"
    BAD_KEY = "bad_key", (422,), "a key of a settings or budgets table is wrong"
    BAD_LLM_MODEL = "bad_llm_model", (422,), "the folder is not an LLM model folder (no config.json)"
    BAD_LOGIN = "bad_login", (401,), "wrong user name or password"
    BAD_MANIFEST = (
        "bad_manifest", (409, 422, 502),
        "a package's algorithm.toml is invalid (422 uploaded, 409 in the project, 502 from a catalog)")
    BAD_METRIC = "bad_metric", (422,), "the metric script of a pipeline comparison is missing or invalid"
    BAD_MODEL_FILE = "bad_model_file", (422,), "the file is not a model the tool can read"
    BAD_MODEL_SPEC = "bad_model_spec", (422,), "the model's spec is invalid"
    BAD_NAME = (
        "bad_name", (422,),
        "a user name is not 1-64 lowercase letters, digits, dots, dashes or underscores")
    BAD_OFFSET = "bad_offset", (422,), "offset must be >= 0"
    BAD_OUTPUT = "bad_output", (422,), "the output path of a tool run is unusable"
    BAD_PATH = "bad_path", (422,), "invalid path"
    BAD_PIPELINE = "bad_pipeline", (422,), "the pipeline of a tool run is invalid"
    BAD_REGEX = "bad_regex", (422,), "not a valid regular expression"
    BAD_REPLACEMENT = "bad_replacement", (422,), "the replacement text is invalid"
    BAD_REQUEST = (
        "bad_request", (400, 422),
        "the request cannot be acted on (400 by default, 422 for a malformed request body)")
    BAD_SOURCE = "bad_source", (422,), "the clone source is not available here"
    BAD_TOKEN = "bad_token", (401,), "the pairing code or device token is not valid"
    BAD_TOOL_ARGS = "bad_tool_args", (422,), "the arguments of a model tool are invalid"
    BAD_TRANSFER = "bad_transfer", (422,), "cannot transfer projects to the user being removed"
    BAD_TREE_PATH = "bad_tree_path", (422,), "the commit holds a path that cannot be exported"
    BAD_VENV = "bad_venv", (422,), "the venv folder exists and is not a virtual environment"
    BAD_ZIP = "bad_zip", (422,), "not a readable zip"
    BINARY = "binary", (422,), "a binary file is not edited as text"
    BINARY_FILE = "binary_file", (422,), "the file is binary where text is needed"
    BLOB_NOT_FOUND = "blob_not_found", (404,), "the path is not in that commit"
    BODY_TOO_LARGE = (
        "body_too_large", (413,),
        "the request body is over the server's cap for bodies read whole")
    BRANCH_EXISTS = "branch_exists", (409,), "the branch already exists"
    BRANCH_NOT_FOUND = "branch_not_found", (404,), "no such branch"
    BRIDGE_ERROR = "bridge_error", (503,), "a device operation failed (forwarded from the device bridge)"
    BUDGETS_NOT_EDITABLE = "budgets_not_editable", (422,), "the budgets file holds what the form cannot edit"
    BUILTIN_BUILD_FAILED = "builtin_build_failed", (503,), "building the built-in algorithms failed"
    CATALOG_ERROR = "catalog_error", (502,), "a market catalog answered with an HTTP error"
    CATALOG_UNREACHABLE = "catalog_unreachable", (503,), "a market catalog cannot be reached"
    CHANGED = "changed", (409,), "the file changed since the preview"
    CHECKSUM_MISMATCH = (
        "checksum_mismatch", (409, 422),
        "a file does not match its checksum: refused (409 download, 422 tampered upload)")
    CLONE_FAILED = "clone_failed", (), "a background clone failed unexpectedly (sent as a clone_failed event)"
    CLOUD_AUTH = "cloud_auth", (403,), "no usable Alibaba Cloud credentials"
    CLOUD_CHECKSUM = "cloud_checksum", (409,), "data was corrupted in transit to or from the cloud"
    CLOUD_ERROR = "cloud_error", (503,), "the cloud service failed"
    CLOUD_FORBIDDEN = "cloud_forbidden", (403,), "the cloud account may not do this"
    CLOUD_INVALID = "cloud_invalid", (422,), "the cloud service refused the request as invalid"
    CLOUD_NOT_FOUND = "cloud_not_found", (404,), "the cloud resource does not exist"
    CLOUD_QUOTA = "cloud_quota", (409,), "a cloud quota is exhausted"
    CLOUD_THROTTLED = "cloud_throttled", (503,), "the cloud service is throttling requests"
    CLOUD_UNREACHABLE = "cloud_unreachable", (503,), "the cloud service cannot be reached"
    CONFLICT = "conflict", (409,), "the request conflicts with the current state"
    CONFLICTED = "conflicted", (409,), "resolve the conflict in the merge editor first"
    CREATOR = "creator", (422,), "the project's creator is always an owner"
    CREDENTIALS_NOT_FOUND = "credentials_not_found", (404,), "no saved credentials for the remote"
    CURRENT_BRANCH = "current_branch", (409,), "cannot delete the branch you are on"
    DELETED = "deleted", (409,), "the file was deleted since you opened it"
    DETACHED_HEAD = (
        "detached_head", (409, 422),
        "HEAD is detached: name the branch (409 for git actions, 422 for a job's request)")
    DEVICE_NOT_FOUND = "device_not_found", (404,), "no such device"
    DEVICE_OFFLINE = (
        "device_offline", (503,),
        "the device is not connected (forwarded from the device bridge)")
    DEVICE_TIMEOUT = "device_timeout", (503,), "the device did not answer in time (also a tool run's result)"
    DOWNLOAD_INTERRUPTED = (
        "download_interrupted", (503,),
        "a download was interrupted; the partial file is kept and the next try resumes")
    DUPLICATE = "duplicate", (409,), "the user already exists"
    DUPLICATE_PATH = "duplicate_path", (422,), "two files would have the same path in the package"
    ENCODING = "encoding", (422,), "the text cannot be encoded in the file's encoding"
    ERROR = "error", (), "any other HTTP error raised by the framework, with its own status"
    EXISTS = "exists", (409,), "the path already exists"
    FILE_NOT_FOUND = "file_not_found", (404,), "no such file"
    FOLDER_NOT_EMPTY = "folder_not_empty", (409,), "the destination folder is not empty"
    FORBIDDEN = "forbidden", (403,), "the caller may not do this"
    GIT_DIR = "git_dir", (403,), "the .git folder is managed by the Git panel"
    GIT_HOST_FORBIDDEN = (
        "git_host_forbidden", (403,),
        "the Git host resolves to a private address an admin has not allowed")
    GIT_URL_FORBIDDEN = "git_url_forbidden", (403,), "the Git URL is not allowed"
    GRID_TOO_LARGE = "grid_too_large", (422,), "a sweep's grid makes more jobs than allowed"
    HEAD_MOVED = "head_moved", (409,), "the branch moved meanwhile; try again"
    INPUT_SHAPE_MISMATCH = "input_shape_mismatch", (422,), "a given input shape contradicts the model"
    INPUT_SHAPE_REQUIRED = "input_shape_required", (422,), "the model has a dynamic input dim: give its shape"
    INSUFFICIENT_STORAGE = "insufficient_storage", (507,), "the disk is full: the change was not written"
    INTERNAL = "internal", (500,), "an unexpected server error (logged on the server)"
    INVALID = "invalid", (422,), "the request is invalid"
    INVALID_AUTHOR = "invalid_author", (422,), "author must look like 'Name <email>'"
    INVALID_BRANCH_NAME = "invalid_branch_name", (422,), "invalid branch name"
    INVALID_PATH = "invalid_path", (422,), "invalid path"
    INVALID_REMOTE_NAME = "invalid_remote_name", (422,), "invalid remote name"
    INVALID_RESOLUTION = "invalid_resolution", (422,), "a conflict's resolution is not a regular file"
    INVALID_TAG_NAME = "invalid_tag_name", (422,), "invalid tag name"
    IO = "io", (), "a file could not be read or written (a skipped file in a search or edit answer)"
    JOB_FILES_MISSING = "job_files_missing", (404,), "the job has no local files"
    JOB_LIMIT = "job_limit", (409,), "the user has the most active jobs allowed"
    JOB_NOT_FOUND = "job_not_found", (404,), "no such job in this project"
    JOB_NOT_RUNNING = "job_not_running", (409,), "the job is not running"
    JOB_NOT_SUCCEEDED = "job_not_succeeded", (409,), "only a succeeded job's model can be used"
    JOB_RUNNING = "job_running", (409,), "the job is still running: pull its artifacts when it has ended"
    LLM_BUSY = "llm_busy", (503,), "every model process is busy; try again when a chat ends"
    LLM_CRASHED = "llm_crashed", (503,), "the model's process ended; see the server log"
    LLM_FAILED = "llm_failed", (422,), "the device could not run the model"
    LLM_LOAD_FAILED = "llm_load_failed", (422,), "the model could not be loaded"
    LOCAL_CHANGES = "local_changes", (409,), "local changes stop the work tree from being updated"
    LOCAL_MODE = "local_mode", (422,), "only available in team mode"
    MERGE_COMMIT = "merge_commit", (422,), "a merge commit cannot be used here"
    MERGE_IN_PROGRESS = (
        "merge_in_progress", (409,),
        "a merge or rebase is in progress: resolve and commit it first")
    METHOD_NOT_ALLOWED = "method_not_allowed", (405,), "the path exists but not for this HTTP method"
    MISMATCH = "mismatch", (422,), "the passwords differ"
    MISSING_ACCESS_KEY = "missing_access_key", (422,), "give the AccessKey id"
    NAME_TOO_LONG = "name_too_long", (422,), "a file name is longer than 255 bytes"
    NETRON_MISSING = "netron_missing", (404,), "the graph viewer (netron) is not installed"
    NO_ARTIFACTS = (
        "no_artifacts", (409,),
        "the job reported no artifacts: it ended before uploading its outputs")
    NO_BUDGETS = "no_budgets", (422,), "the project has no budget tables"
    NO_COMMAND = "no_command", (422,), "give a command: the project's template has no default one"
    NO_COMMIT = "no_commit", (409,), "the project has no commit to run"
    NO_COMMITS = (
        "no_commits", (404, 422),
        "the repository has no commit yet (404 to read, 422 to tag or amend)")
    NO_FILES = "no_files", (422,), "list at least one file besides algorithm.toml"
    NO_GIT = "no_git", (503,), "search needs the git program on the server's PATH"
    NO_IDENTITY = (
        "no_identity", (422,),
        "no author: set your name and email, or the repository's user.name and user.email")
    NO_JOB = "no_job", (404,), "no such job"
    NO_MEMBER = "no_member", (404,), "the user is not a member of this project"
    NO_MESSAGE = "no_message", (422,), "give a commit message"
    NO_MNN_LLM = "no_mnn_llm", (503,), "the device's agent has no MNN LLM runtime (forwarded from the device)"
    NO_OWNER = "no_owner", (404,), "the project's owner no longer exists"
    NO_PROJECT = "no_project", (404,), "no such project"
    NO_REMOTE = "no_remote", (409,), "the project has no Git remote the cloud can fetch from"
    NO_SHARE = "no_share", (404,), "the device is not shared with that user"
    NO_SHELL = "no_shell", (503,), "a shell cannot be started"
    NO_TOKEN = "no_token", (404,), "no such token"
    NO_USER = "no_user", (404,), "no such user"
    NOT_A_DATASET = "not_a_dataset", (422,), "the path is not a dataset"
    NOT_A_PLAYGROUND = "not_a_playground", (422,), "the zip is not a playground project"
    NOT_A_REPOSITORY = "not_a_repository", (404,), "this project is not a Git repository"
    NOT_CLOUD_JOB = "not_cloud_job", (404,), "not a PAI-DLC job"
    NOT_COMMITTED = "not_committed", (409,), "the job runs a commit: commit first"
    NOT_CONFLICTED = "not_conflicted", (404,), "the file has no conflict"
    NOT_EMPTY = "not_empty", (422,), "the folder is not empty"
    NOT_FOUND = (
        "not_found", (404, 422),
        "no such thing (404), or a named item missing from a request body (422)")
    NOT_IN_TRASH = "not_in_trash", (404,), "nothing in the trash by that id"
    NOT_OWNED_FOLDER = (
        "not_owned_folder", (422,),
        "files of a folder opened from elsewhere are never deleted; remove it yourself")
    NOT_PACKAGE_OWNER = "not_package_owner", (403,), "only the package's owner may publish it"
    NOT_PUSHED = "not_pushed", (409,), "the commit is not on the remote: push first"
    NOT_RUNNING = (
        "not_running", (), "the playground is not running on this machine (a devices/error event)")
    NOT_TEXT = "not_text", (422,), "only text can be staged by lines"
    NOTHING_TO_AMEND = "nothing_to_amend", (422,), "there is no commit to amend"
    NOTHING_TO_COMMIT = "nothing_to_commit", (422,), "nothing to commit: HEAD already has this change"
    NOTHING_TO_STASH = "nothing_to_stash", (422,), "no local changes to save"
    OUTSIDE_PACKAGE = "outside_package", (422,), "a file is outside the package's folder"
    OWNER = "owner", (422,), "the owner already uses the device"
    OWNS_PROJECTS = "owns_projects", (409,), "the user owns projects: transfer them first"
    PACKAGE_FILE_MISSING = "package_file_missing", (404,), "a package file is missing from the catalog"
    PACKAGE_NOT_FOUND = "package_not_found", (404,), "the catalog has no such package or version"
    PAI_DLC_NOT_CONFIGURED = "pai_dlc_not_configured", (422,), "the PAI-DLC settings are incomplete"
    PATH_ESCAPE = "path_escape", (403,), "path escapes the project"
    PIPELINE_FAILED = "pipeline_failed", (), "a pipeline run on the device failed (a tool run's outcome)"
    PLAYGROUND_LIMIT = (
        "playground_limit", (),
        "the person already has as many playground runs on this machine as allowed (a devices/error event)")
    PULL_BUSY = "pull_busy", (409,), "the job's artifacts are already being pulled"
    PUSH_FAILED = "push_failed", (503,), "the model's files did not reach the device"
    PUSH_REJECTED = "push_rejected", (409,), "the remote rejected the push"
    RAY_ERROR = "ray_error", (503,), "the Ray cluster refused the request"
    RAY_JOB_MISSING = "ray_job_missing", (404,), "the Ray cluster does not know this job"
    RAY_NOT_CONFIGURED = "ray_not_configured", (422,), "the Ray settings are incomplete"
    RAY_NOT_INSTALLED = "ray_not_installed", (503,), "Ray is not installed"
    RAY_UNREACHABLE = "ray_unreachable", (503,), "the Ray dashboard cannot be reached"
    REAL_PACKAGE_NOT_BUILT = "real_package_not_built", (503,), "the real algorithm is not built yet"
    REGEX_TOO_COMPLEX = "regex_too_complex", (422,), "git grep gave up on the pattern"
    REGEX_TOO_SLOW = "regex_too_slow", (422,), "matching the pattern took too long"
    REMOTE_CODE_REFUSED = (
        "remote_code_refused", (422,),
        "the model needs remote code, which is not allowed on this server")
    REMOTE_CORRUPT = "remote_corrupt", (502,), "the remote repository is corrupt"
    REMOTE_ERROR = "remote_error", (503,), "the Git remote cannot be reached or failed"
    REMOTE_EXISTS = "remote_exists", (409,), "the remote already exists"
    REMOTE_NOT_FOUND = "remote_not_found", (404,), "no such remote"
    REPOSITORY_LOCKED = "repository_locked", (409,), "another Git process is writing the repository"
    ROLE_REQUIRED = "role_required", (403,), "only an owner may remove other members"
    ROOT_COMMIT = "root_commit", (422,), "the first commit cannot be reverted"
    RUN_FAILED = "run_failed", (), "the playground's run could not start (a devices/error event)"
    RUN_FINISHED = "run_finished", (409,), "the run has already ended"
    RUN_NOT_FOUND = "run_not_found", (404,), "no such tool run"
    SANDBOX_UNAVAILABLE = "sandbox_unavailable", (503,), "the sandbox is unavailable"
    SEARCH_FAILED = "search_failed", (503,), "git grep failed"
    SECRET_UNREADABLE = (
        "secret_unreadable", (409,),
        "a stored secret cannot be decrypted: enter the credentials again")
    SOURCE_NOT_FOUND = "source_not_found", (404,), "no such market source"
    STALE_DIFF = (
        "stale_diff", (409, 422),
        "the diff no longer matches the file (409), or its base is missing (422)")
    STASH_CONFLICT = "stash_conflict", (409,), "the stash conflicts with the current files; it was kept"
    STASH_NOT_FOUND = "stash_not_found", (404,), "no such stash"
    STORAGE_ERROR = "storage_error", (503,), "the job's storage cannot be read"
    TAG_EXISTS = "tag_exists", (409,), "the tag already exists"
    TAG_NOT_FOUND = "tag_not_found", (404,), "no such tag"
    TERMINAL_ADMINS_ONLY = "terminal_admins_only", (403,), "terminals are for administrators on this server"
    TERMINAL_LIMIT = "terminal_limit", (409,), "the user has the most terminals allowed"
    THROTTLED = "throttled", (429,), "too many attempts: try again later"
    TIMEOUT = "timeout", (503,), "the remote did not answer in time"
    TOOL_RUN_LIMIT = "tool_run_limit", (409,), "the user has the most active tool runs allowed"
    TOO_LARGE = "too_large", (413, 422), "the request or file is too large (413, or 422 for a request field)"
    TOO_MANY_BACKUPS = "too_many_backups", (413,), "too many files have unsaved edits kept"
    UNAUTHORIZED = "unauthorized", (401,), "authentication required or failed"
    UNAVAILABLE = "unavailable", (503,), "a service the request needs is unavailable"
    UNKNOWN = "unknown", (), "a websocket command on a channel nothing listens to (sent as a sys.error event)"
    UNKNOWN_BACKEND = "unknown_backend", (422,), "unknown or unconfigured training backend"
    UNKNOWN_SESSION = (
        "unknown_session", (404,),
        "the device session is closed or never existed (forwarded from the device bridge)")
    UNKNOWN_TEMPLATE = "unknown_template", (422,), "unknown project template"
    UNMERGED_BRANCH = (
        "unmerged_branch", (409,),
        "the branch has unmerged commits: delete with force to drop them")
    UNRESOLVED_CONFLICTS = (
        "unresolved_conflicts", (409, 422),
        "resolve and stage the conflicted files first (409 git, 422 job request)")
    UNSAFE_PACKAGE_ENTRY = "unsafe_package_entry", (422,), "a package holds an unsafe path or link"
    UNSAFE_PATH = (
        "unsafe_path", (422,),
        "the device refused a model path outside its folder (forwarded from the device)")
    UNSAFE_PATHS = "unsafe_paths", (422,), "refused: unsafe path in the tree"
    UNSAFE_ZIP_ENTRY = "unsafe_zip_entry", (422,), "a zip holds an unsafe path or link"
    UNSUPPORTED_URL = "unsupported_url", (422,), "unsupported remote transport"
    VENV_BUSY = "venv_busy", (409,), "a venv is already being created for this project"
    VERSION_EXISTS = "version_exists", (409,), "the package version is already published"
    VERSION_NOT_FOUND = (
        "version_not_found", (404, 422),
        "no such package version (404, or 422 in a request body)")
    WEAK_PASSWORD = "weak_password", (422,), "the password is too short"
    ZIP_TOO_LARGE = "zip_too_large", (413,), "the zip has too many entries or bytes"
