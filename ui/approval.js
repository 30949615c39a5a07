// The inline approval (record 0068): a command refused with `approval_required` opens
// a small dialog over the screen (nothing behind it changes, the cashier's input stays);
// someone holding the role picks their name and types their PIN, and the same command
// is sent again with `approval: {name, pin}`. The command checks the PIN and the role.

import { invoke } from './bridge.js';
import { ERROR } from './contract.js';
import { $, h, errText } from './dom.js';
import { t } from './i18n.js';
import { roleWords, signedIn } from './signin.js';

const RANK = { cashier: 0, manager: 1, owner: 2 };

/** Asks for an approval for `err` (an approval_required error); resolves with
 *  {name, pin}, or null when canceled. `check(approval)` sends the command: it resolves
 *  when the approval was accepted, or rejects to keep the dialog open with the error. */
function ask(err, check) {
  return new Promise(async (resolve) => {
    const d = $('approval');
    const me = signedIn();
    let staff = [];
    try { staff = await invoke('staff_list'); } catch (e) { /* the name list stays empty */ }
    const eligible = staff.filter((s) => RANK[s.role] >= RANK[err.min_role] && (!me || s.name !== me.name));
    $('approval-why').textContent = errText(err);
    $('approval-name').replaceChildren(...eligible.map((s) => h('option', { value: s.name, text: `${s.name} (${roleWords(s.role)})` })));
    $('approval-pin').value = '';
    $('approval-msg').textContent = '';
    $('approval-msg').dataset.code = '';
    const done = (v) => {
      form.removeEventListener('submit', submit);
      $('approval-cancel').removeEventListener('click', cancel);
      d.hidden = true;
      resolve(v);
    };
    const form = $('approval-form');
    const submit = async (e) => {
      e.preventDefault();
      const approval = { name: $('approval-name').value, pin: $('approval-pin').value };
      $('approval-ok').disabled = true;
      try {
        const result = await check(approval);
        done({ result });
      } catch (e2) {
        if (e2 && (e2.code === ERROR.WRONG_PIN || e2.code === ERROR.STAFF_LOCKED || e2.code === ERROR.NOT_ALLOWED || e2.code === ERROR.INVALID_INPUT)) {
          $('approval-msg').textContent = errText(e2);
          $('approval-msg').dataset.code = e2.code;
          $('approval-pin').value = '';
          $('approval-pin').focus();
        } else {
          done({ error: e2 });
        }
      } finally {
        $('approval-ok').disabled = false;
      }
    };
    const cancel = () => done(null);
    form.addEventListener('submit', submit);
    $('approval-cancel').addEventListener('click', cancel);
    d.hidden = false;
    $('approval-pin').focus();
  });
}

/** Runs `send(approval)` (a command call); when it is refused for want of an approval,
 *  asks for one inline and sends it again. Rejects like the command (or with
 *  {code:'approval_canceled'} when the dialog was closed). */
export async function withApproval(send) {
  try {
    return await send(undefined);
  } catch (err) {
    if (!err || err.code !== ERROR.APPROVAL_REQUIRED) throw err;
    const got = await ask(err, (approval) => send(approval));
    if (got === null) throw { code: 'approval_canceled', message: t('approval-canceled') };
    if ('error' in got) throw got.error;
    return got.result;
  }
}
