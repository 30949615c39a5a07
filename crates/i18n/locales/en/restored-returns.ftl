# Returns of a sale restored from a replaced register (record 0144).
restored-return-title = Return items of receipt { $number } from register { $name }
restored-return-help = This sale was made by register { $name }, which this register replaced. Cards are refunded first (each up to what it has left), the rest in cash from this drawer.
restored-return-open = Return items
restored-return-sale = Sale { $sale } of { $time }, { $total }
restored-col-return = Return
restored-input-source = A replaced register is named by its id (1 to { $max } characters).
restored-error-unknown-source = No register { $register } was restored from at this register.
restored-error-not-finished = The restore from register { $register } has not finished. Finish it (Settings → Back office) before taking back its sales.
restored-error-unknown-sale = Register { $register } completed no sale { $sale } in its restored history.
restored-error-ambiguous = Receipt { $number } is in the history of more than one replaced register. Open the sale from its register's payments list.
restored-error-canceled = Sale { $sale } of register { $register } was canceled; nothing of it can come back.
restored-error-not-valued = Sale { $sale } of register { $register } cannot be valued with this store's tax settings; nothing was returned. Return it at the back office.
restored-error-unsettled = A card payment of sale { $sale } of register { $register } has no known outcome; nothing was returned.
restored-error-store-tender = Sale { $sale } of register { $register } was paid in part by a store tender; give that part back at the back office. Nothing was returned.
restored-error-refund-exceeds = Sale { $sale } of register { $register } has less left to give back than this return; nothing was returned.
restored-exchange-help = Or ring the new items up on the register first: then the items chosen here pay for them, and only the difference is paid there or given back (to the cards of register { $name }'s sale first, the rest in cash from this drawer).
restored-error-credit-not-given-back = Sale { $cart } was paid in part by exchanging goods of sale { $sale } of register { $register }: that part cannot be given back at this register. Nothing was given back.
