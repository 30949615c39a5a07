# カードリーダーでの対面決済 (issue #27)

## 状態 (src-tauri/src/reader/mod.rs)
reader-paid = お支払い済み { $amount } — { $card }
reader-authorized = オーソリ済み { $amount } — { $card }
reader-waiting = { $reader } にカードをかざしてください — { $amount }。カードを待っています…
reader-declined = 承認されませんでした — 請求はありません ({ $reason })。別のカードか現金でお受け取りください。
reader-customer-canceled = お客様がリーダーで取り消しました — 請求はありません。別のカードか現金でお受け取りください。
reader-action-canceled = リーダーで取り消しました — 請求はありません。別のカードか現金でお受け取りください。
reader-not-started = リーダーが開始しませんでした — 請求はありません ({ $reason })。もう一度お試しいただくか、現金でお受け取りください。
reader-intent-canceled = 請求はありません。今後も請求されません: このカード決済は終了しました。
reader-pending = 保留中: { $amount } が請求されたかどうか、まだ分かりません ({ $because })。別のお支払いを受け取らず、状態を確認してください。キー { $key }
reader-pending-timeout = リーダーがタイムアウトしました
reader-pending-lost = 応答が届きませんでした
reader-pending-connection = オーソリ中に接続が切れました
reader-pending-stuck = リーダーが長い間待機しています
reader-pending-cannot-read = 決済代行会社に今は接続できません
reader-pending-processing = 決済はまだ処理中です
reader-busy = { $reader } は別の処理中です — 何も開始していません。もう一度お試しください。
reader-unavailable-psp = カードリーダーを使えません: 決済代行会社に接続できません。現金か別のお支払い方法でお受け取りください。
reader-unavailable-offline = { $reader } はオフラインです — 何も開始していません。現金か別のお支払い方法でお受け取りください。

## 拒否と入力
reader-error-keyed-not-test-mode = 手入力のテストカードはテストモード (内蔵 PSP またはテストキー) でのみ使えます。カードはリーダーで受け付けてください。
reader-error-not-test-mode = お客様のシミュレーションはテストモード (内蔵 PSP またはテストキー) でのみ使えます。
reader-error-needs-embedded = このリーダー障害のシミュレーションには内蔵 PSP が必要です。
reader-error-unknown = このレジにリーダー { $reader } は登録されていません。設定 → カードリーダーで追加してください。
input-reader-id = カードリーダーを選んでください。
input-reader-code = リーダーの登録コードを入力してください (1〜100 文字)。
input-reader-label = リーダーの名前を入力してください (1〜100 文字)。
reader-location-default = PayDesk 店舗

## 設定 → カードリーダー
reader-status-online = オンライン
reader-status-offline = オフライン
reader-status-unknown = 状態不明
settings-reader-title = カードリーダー
settings-reader-code = 登録コード
settings-reader-label = 名前
settings-reader-register = リーダーを登録
settings-reader-none = カードリーダーはまだ登録されていません。
settings-reader-location = 店舗のロケーション: { $location }
settings-reader-hint = テストモード: コード simulated-wpe でシミュレーションのリーダーを登録できます。
settings-reader-done = リーダー { $label } を登録しました。

## 会計
reader-check = 状態を確認
reader-cancel = リーダーで取り消す
reader-try-again = 別のカードで
reader-cash = 現金に切り替える
reader-sim-title = お客様のシミュレーション (テストモード)
reader-sim-approved = 承認されるカード
reader-sim-declined = 拒否されるカード
reader-sim-insufficient = 残高不足
reader-sim-cancels = 次のカード: お客様が取り消す
reader-sim-timeout = 次のカード: タイムアウトでも請求される
reader-armed-customer-cancels = 次のカードでは、お客様がリーダーで取り消します。
reader-armed-timeout = 次のカードでは、リーダーはタイムアウトしますがカードを受け付けます。

## リーダーパネルの見出しと行 (ui/reader.js, ui/tender.js)
reader-head-paid = お支払い済み
reader-head-authorized = オーソリ済み
reader-head-waiting = お客様のカードを待っています…
reader-head-declined = 承認されませんでした — 別のカードをお試しください
reader-head-not-charged = 請求はありません
reader-head-pending = 保留中 — 決済代行会社に確認しています
reader-head-busy = リーダーは処理中です
reader-head-unavailable = カードリーダーを使えません
reader-on = { $reader } · { $amount }
reader-key = 会計キー { $key }
reader-present-again = もう一度かざす
reader-option = カードリーダー — { $label }
reader-tender-label = リーダーのカード
reader-sending = リーダーに送信しています…
reader-working = リーダーに問い合わせています…
reader-pending-tender = { $amount } のカード決済がリーダーにあります。結果はまだ分かりません。別のお支払いを受け取る前に状態を確認してください。
settings-reader-demo = シミュレーションのリーダーを登録
settings-reader-demo-label = 表のレジ (シミュレーション)
reader-tender-state = カードリーダーで受付中
