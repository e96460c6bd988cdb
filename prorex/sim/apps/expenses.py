"""Expense tracker: a long list (name, amount, category, date), add, delete."""

from __future__ import annotations

from prorex.sim.apps.common import (
    App,
    btn,
    confirm_delete,
    drop_index,
    edit,
    icon,
    item,
    label,
)
from prorex.sim.render import Page
from prorex.sim.state import Expense, money

APP = App(key="expenses", name="Expenses", package="com.prorex.expenses", main="home")
CATEGORIES = ("Food", "Housing", "Transport", "Utilities", "Entertainment", "Health", "Income", "Others")


def parse_amount(s: str) -> int | None:
    s = s.strip().lstrip("$").replace(",", "")
    try:
        v = round(float(s) * 100)
    except ValueError:
        return None
    return v if v >= 0 else None


@APP.page
def page_home(phone, scr) -> Page:
    rows = [item(e.name, f"{money(e.amount_cents)} · {e.category} · {e.date}", key=e.name,
                 on_click=lambda i=i: phone.push("expenses", "detail", i=i))
            for i, e in enumerate(phone.state.expenses)]
    total = sum(e.amount_cents for e in phone.state.expenses)
    return Page(package=APP.package, activity=APP.activity("MainActivity"), title="Expenses",
                header=[label(f"Total: {money(total)}", rid="total", height=110)],
                items=rows, reorder=True, empty="No expenses yet",
                fab=icon("Add expense", lambda: phone.push("expenses", "editor")))


@APP.page
def page_detail(phone, scr) -> Page:
    i = scr.args["i"]
    exs = phone.state.expenses
    e = exs[i] if 0 <= i < len(exs) else None
    rows = []
    if e is not None:
        rows = [item(money(e.amount_cents), "Amount", key="amount"), item(e.category, "Category", key="cat"),
                item(e.date, "Date", key="date")]
        if e.note:
            rows.append(item(e.note, "Note", key="note"))
    return Page(package=APP.package, activity=APP.activity("ExpenseActivity"),
                title=e.name if e else "Expense", up=phone.pop, items=rows,
                menu=[icon("Delete", lambda: phone.show_dialog("delete"))])


@APP.dialog
def dialog_delete(phone, scr, args):
    i = scr.args["i"]
    name = phone.state.expenses[i].name if 0 <= i < len(phone.state.expenses) else "This expense"
    return confirm_delete(phone, "Delete expense?", f"{name} will be deleted.",
                          lambda: drop_index(phone.state.expenses, i))


@APP.page
def page_editor(phone, scr) -> Page:
    def save() -> None:
        name = phone.value("name").strip()
        cents = parse_amount(phone.value("amount"))
        if not name or cents is None:
            return
        cat = phone.value("category").strip() or "Others"
        day = phone.value("date").strip() or phone.state.now().date().isoformat()
        phone.state.expenses.append(Expense(name=name, amount_cents=cents, category=cat, date=day,
                                            note=phone.value("note").strip()))
        phone.pop()

    return Page(package=APP.package, activity=APP.activity("AddExpenseActivity"), title="Add expense",
                up=phone.pop, menu=[btn("Save", save, rid="save")],
                header=[edit(phone, "name", "Name"), edit(phone, "amount", "Amount"),
                        edit(phone, "category", "Category"), edit(phone, "date", "Date (YYYY-MM-DD)"),
                        edit(phone, "note", "Note")])
