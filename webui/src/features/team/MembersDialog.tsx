// Who may read, change or manage the project. Owners (and admins) edit; everyone else reads, and
// may leave.
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { asProjectRole, listUsers, PROJECT_ROLES, removeMember, setMember, type Member, type ProjectRole } from '../../api/team';
import { Modal } from '../../ui/dialogs';
import { account, loadProjectRole, projectRole } from '../../kernel/account';

interface Props {
  pid: string;
  onClose: () => void;
}

function RoleSelect(props: { value: ProjectRole; disabled?: boolean; testid: string; onChange: (role: ProjectRole) => void }) {
  return (
    <select value={props.value} disabled={props.disabled} data-testid={props.testid} aria-label="Role"
      onChange={(ev) => props.onChange(ev.currentTarget.value as ProjectRole)}>
      {PROJECT_ROLES.map((role) => <option key={role} value={role}>{role}</option>)}
    </select>
  );
}

function AddMember({ run, userNames }: { run: (name: string, role: ProjectRole) => Promise<boolean>; userNames: string[] }) {
  const [name, setName] = useState('');
  const [role, setRole] = useState<ProjectRole>('editor');
  const submit = async (ev: Event) => {
    ev.preventDefault();
    if (await run(name.trim(), role)) setName('');
  };
  return (
    <form class="member-add" onSubmit={submit}>
      <input placeholder="User name" aria-label="User name" data-testid="member-name" list="team-user-names"
        value={name} onInput={(ev) => setName(ev.currentTarget.value)} />
      <datalist id="team-user-names">{userNames.map((n) => <option key={n} value={n} />)}</datalist>
      <RoleSelect value={role} testid="member-new-role" onChange={setRole} />
      <button class="btn btn-primary" type="submit" data-testid="member-add" disabled={!name.trim()}>Add</button>
    </form>
  );
}

type Run = (action: () => Promise<unknown>) => Promise<boolean>;

interface RowProps {
  member: Member;
  creator: boolean;
  canEdit: boolean;
  pid: string;
  run: Run;
  leave: () => void;
}

function MemberRow(props: RowProps) {
  const { member, creator, canEdit, pid } = props;
  const self = member.user === account.value?.name;
  const role = asProjectRole(member.role);
  // Non-admins who remove themselves lose sight of the project: that is leaving it.
  const leaving = self && account.value?.role !== 'admin';
  const mayRemove = !creator && (canEdit || self);
  const remove = () => (leaving ? props.leave() : void props.run(() => removeMember(pid, member.user)));
  return (
    <tr data-testid="member-row" data-user={member.user} data-role={member.role}>
      <td>{member.user}{self && <span class="muted"> (you)</span>}</td>
      <td>
        {canEdit && !creator && role
          ? <RoleSelect value={role} testid="member-role" onChange={(role) => void props.run(() => setMember(pid, member.user, role))} />
          : <span data-testid="member-role-text">{member.role}{creator && <span class="muted"> · creator</span>}</span>}
      </td>
      <td class="row-actions">
        {mayRemove && (
          <button class="btn btn-small btn-danger-ghost" data-testid="member-remove" onClick={remove}>
            {leaving ? 'Leave' : 'Remove'}
          </button>
        )}
      </td>
    </tr>
  );
}

export function MembersDialog({ pid, onClose }: Props) {
  const [members, setMembers] = useState<Member[] | null>(null);
  const [userNames, setUserNames] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const canEdit = projectRole.value === 'owner';
  const reload = async () => setMembers(await loadProjectRole(pid));
  useEffect(() => {
    reload().catch((err) => setError(errorMessage(err)));
    // Only admins may list everyone; members type the name (and so may admins if the list fails).
    if (account.value?.role === 'admin') listUsers().then((users) => setUserNames(users.map((u) => u.name)), () => undefined);
  }, [pid]);
  const run: Run = async (action) => {
    setError(null);
    try {
      await action();
      await reload();
      return true;
    } catch (err) {
      setError(errorMessage(err));
      return false;
    }
  };
  // After leaving, this project is no longer the caller's to see.
  const leave = () => removeMember(pid, account.value!.name).then(() => location.assign('/'), (err) => setError(errorMessage(err)));
  return (
    <Modal title="Members" testid="members-dialog" onClose={onClose}>
      {!canEdit && <p class="muted" data-testid="members-readonly">Only owners can change who is in this project.</p>}
      {members === null && !error && <p class="muted">Loading…</p>}
      {members && (
        <table class="table members-table">
          <tbody>
            {members.map((m, i) => <MemberRow key={m.user} member={m} creator={i === 0} canEdit={canEdit} run={run} leave={leave} pid={pid} />)}
          </tbody>
        </table>
      )}
      {canEdit && <AddMember userNames={userNames.filter((n) => !members?.some((m) => m.user === n))} run={(name, role) => run(() => setMember(pid, name, role))} />}
      {error && <div class="form-error" role="alert" data-testid="members-error">{error}</div>}
      <div class="modal-actions">
        <button class="btn" onClick={onClose} data-testid="members-close">Close</button>
      </div>
    </Modal>
  );
}
