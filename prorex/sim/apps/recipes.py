"""Recipes: list, details with ingredients and quantities, add, delete."""

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
from prorex.sim.state import Ingredient, Recipe

APP = App(key="recipes", name="Recipes", package="com.prorex.recipes", main="home")


@APP.page
def page_home(phone, scr) -> Page:
    rows = [item(r.title, r.description, key=r.title,
                 on_click=lambda i=i: phone.push("recipes", "detail", i=i))
            for i, r in enumerate(phone.state.recipes)]
    return Page(package=APP.package, activity=APP.activity("MainActivity"), title="Recipes",
                items=rows, reorder=True, empty="No recipes",
                fab=icon("Add recipe", lambda: phone.push("recipes", "editor")))


@APP.page
def page_detail(phone, scr) -> Page:
    i = scr.args["i"]
    rs = phone.state.recipes
    r = rs[i] if 0 <= i < len(rs) else None
    rows = []
    if r is not None:
        rows.append(label(f"{r.description}\nServings: {r.servings}", rid="description"))
        rows += [item(g.name, g.quantity, key=g.name) for g in r.ingredients]
    return Page(package=APP.package, activity=APP.activity("RecipeActivity"), title=r.title if r else "Recipe",
                up=phone.pop, items=rows, list_rid="ingredients",
                menu=[icon("Delete recipe", lambda: phone.show_dialog("delete"))])


@APP.dialog
def dialog_delete(phone, scr, args):
    i = scr.args["i"]
    return confirm_delete(phone, "Delete recipe?", "", lambda: drop_index(phone.state.recipes, i))


def parse_ingredients(text: str) -> list[Ingredient]:
    """One ingredient per line: "<quantity> <unit> <name>" or "<name>: <quantity>"."""
    out = []
    for line in text.splitlines():
        line = line.strip().lstrip("-• ").strip()
        if not line:
            continue
        if ":" in line:
            name, qty = line.split(":", 1)
        else:
            parts = line.split(" ", 2)
            qty, name = (" ".join(parts[:2]), parts[2]) if len(parts) == 3 else ("", line)
        out.append(Ingredient(name=name.strip(), quantity=qty.strip()))
    return out


@APP.page
def page_editor(phone, scr) -> Page:
    def save() -> None:
        title = phone.value("title").strip()
        if not title:
            return
        servings = phone.value("servings").strip()
        phone.state.recipes.append(Recipe(
            title=title, description=phone.value("description").strip(),
            servings=int(servings) if servings.isdigit() else 2,
            ingredients=parse_ingredients(phone.value("ingredients_body"))))
        phone.pop()

    return Page(package=APP.package, activity=APP.activity("EditRecipeActivity"), title="Add recipe",
                up=phone.pop, menu=[btn("Save", save, rid="save")],
                header=[edit(phone, "title", "Title"), edit(phone, "description", "Description"),
                        edit(phone, "servings", "Servings"),
                        edit(phone, "ingredients_body", "Ingredients, one per line", lines=3)])
