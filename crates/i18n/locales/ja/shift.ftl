# シフト: 印字する点検(X)・精算(Z)レポート (crates/receipt、店舗の言語) と
# シフト画面 (ui/shift.js、画面の言語)。
shift-report-x-title = 点検レポート(X)
shift-report-z-title = 精算レポート No.{ $number }
shift-report-register = レジ
shift-report-opened = 開始
shift-report-closed = 終了
shift-report-opened-by = 開始担当
shift-report-closed-by = 精算担当
shift-report-approved-by = 承認者
shift-report-printed = 印刷
shift-report-float = 釣銭準備金
shift-report-cash-sales = 現金売上
shift-report-cash-cancels = 取消時の現金返却
shift-report-cash-refunds = 現金返金
shift-report-paid-in = 入金
shift-report-paid-out = 出金
shift-report-expected = 理論在高
shift-report-counted = 実在高
shift-report-over = 過剰
shift-report-short = 不足
shift-report-even = 過不足
shift-report-tenders = 決済内訳
shift-report-sales = 売上件数
shift-report-checkpoint = 監査チェックポイント
shift-report-not-closed = シフト継続中 (精算ではありません)
